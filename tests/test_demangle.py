"""emutrace.demangle: the Itanium C++ demangler behind -C, against the names c++filt and ltrace -C
print (binutils' demangler without DMGL_VERBOSE; with it for verbose=True)."""
import pytest


DEMANGLE_CASES = [
    ("_ZNSo3putEc", "std::ostream::put(char)"),
    ("_Znwm", "operator new(unsigned long)"),
    ("_ZdlPvm", "operator delete(void*, unsigned long)"),
    ("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm",
     "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_create(unsigned long&, "
     "unsigned long)"),
    ("_ZSt24__throw_out_of_range_fmtPKcz", "std::__throw_out_of_range_fmt(char const*, ...)"),
    ("_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm",
     "std::__detail::_Prime_rehash_policy::_M_need_rehash(unsigned long, unsigned long, unsigned long) const"),
    ("_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
     "std::basic_ostream<char, std::char_traits<char> >& std::operator<< <std::char_traits<char> >"
     "(std::basic_ostream<char, std::char_traits<char> >&, char const*)"),
    ("_ZNSsC1Ev", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string()"),
    ("_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)"),
    ("_ZN1AD0Ev", "A::~A()"),
    ("_Z1fPFvvE", "f(void (*)())"),
    ("_Z1fPFPFivEvE", "f(int (*(*)())())"),
    ("_Z1fPA10_i", "f(int (*) [10])"),
    ("_Z1fM1AFviE", "f(void (A::*)(int))"),
    ("_Z1fM1Ai", "f(int A::*)"),
    ("_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const"),
    ("_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo()"),
    ("_Z3maxIiET_S0_S0_", "int max<int>(int, int)"),
    ("_Z1fIJidEEvDpT_", "void f<int, double>(int, double)"),
    ("_Z1fILi5EEvv", "void f<5>()"),
    ("_Z1fILb1EEvv", "void f<true>()"),
    ("_ZTV1A", "vtable for A"),
    ("_ZThn8_N1B1fEv", "non-virtual thunk to B::f()"),
    ("_ZGVZ4mainE1x", "guard variable for main::x"),
    ("_Z1fv.constprop.0", "f() [clone .constprop.0]"),
    ("_ZN1AcviEv", "A::operator int()"),
    ("_Z4funcB5cxx11v", "func[abi:cxx11]()"),
]


@pytest.mark.parametrize("mangled,expected", DEMANGLE_CASES)
def test_demangle(mangled, expected):
    from emutrace.demangle import demangle
    assert demangle(mangled) == expected


def test_demangle_verbose_and_failures():
    from emutrace.demangle import demangle
    assert demangle("_ZNSo3putEc", verbose=True) == "std::basic_ostream<char, std::char_traits<char> >::put(char)"
    assert demangle("strlen") is None
    assert demangle("_Z") is None
    assert demangle("_ZN3foo") is None
    assert demangle("_Znwm@GLIBCXX_3.4") == "operator new(unsigned long)"


def test_demangle_matches_cxxfilt_on_this_machine():
    """Every C++ import of a few installed binaries/libraries, against `c++filt -i`
    (binutils' demangler without DMGL_VERBOSE, i.e. what ltrace -C uses)."""
    import glob
    import shutil
    import subprocess
    from emutrace.demangle import demangle
    if not shutil.which("c++filt") or not shutil.which("nm"):
        pytest.skip("binutils missing")
    names = set()
    for lib in sorted(glob.glob("/usr/lib/x86_64-linux-gnu/lib*.so*"))[:150]:
        out = subprocess.run(["nm", "-D", "--undefined-only", lib], capture_output=True, text=True).stdout
        names.update(l.split()[-1].split("@")[0] for l in out.splitlines() if "_Z" in l)
    names = sorted(n for n in names if n.startswith("_Z"))[:3000]
    if not names:
        pytest.skip("no C++ imports found")
    ref = subprocess.run(["c++filt", "-i"], input="\n".join(names) + "\n", capture_output=True,
                         text=True).stdout.splitlines()
    bad = [(n, demangle(n), r) for n, r in zip(names, ref) if demangle(n) != r and not n.startswith("_ZGT")]
    assert len(bad) <= len(names) // 200, bad[:10]

"""The replay side's line makers: a logged site's arguments, and its whole line for a leaf call,
compiled from its prototype's ops."""
from __future__ import annotations

import struct
from typing import Dict, List


from emutrace.escapes import escape_bytes
from emutrace.machine.abi import TEXTS, result_at_expr
from emutrace.renderops import CSTR, CSTRN, LENGTH, WORD
from emutrace.values import LEAF_COLUMN
from emutrace.guestlog.format import HEAD, RET_TAG, FIXED



def _left_renderer(plan, strings):
    """fn(w, data, off) -> [str]: w is the record's words (tag first), data[off:] the record."""
    at = {i: (a_off, cap, j) for i, a_off, cap, j in strings}
    parts = []
    for i, op in plan.left_items:
        if i in at:
            a_off, cap, j = at[i]
            f = op.from_bytes
            if op.capture == CSTRN:         # (its length word is the op's, the copy a C string's)
                parts.append(lambda w, data, off, i=i + 1, j=op.len_arg + 1, f=f, a=a_off, c=cap:
                             f(w[i], data[off + a:off + a + c], w[j]))
            elif j is None or j == FIXED:
                parts.append(lambda w, data, off, i=i + 1, f=f, a=a_off, c=cap: f(w[i], data[off + a:off + a + c]))
            else:
                parts.append(lambda w, data, off, i=i + 1, j=j + 1, f=f, a=a_off, c=cap:
                             f(w[i], data[off + a:off + a + min(w[j], c)], w[j]))
        else:
            parts.append(lambda w, data, off, i=i + 1, f=op.word: f(w[i], None))
    if len(parts) == 1:
        p0, = parts
        return lambda w, data, off: [p0(w, data, off)]
    if len(parts) == 2:
        p0, p1 = parts
        return lambda w, data, off: [p0(w, data, off), p1(w, data, off)]
    if len(parts) == 3:
        p0, p1, p2 = parts
        return lambda w, data, off: [p0(w, data, off), p1(w, data, off), p2(w, data, off)]
    return lambda w, data, off: [p(w, data, off) for p in parts]


MEMO_MAX = 4096                    # finished lines kept per call site (see _leaf_renderer)
QUOTED_MAX = 1 << 16               # quoted C strings kept, by their bytes
_QUOTED: Dict[bytes, str] = {}


def _leaf_renderer(display: str, plan, strings, size: int, suffix: str = "\n", captures: bool = True):
    """(leaf, quick) for a site, compiled from one body (renderers that are plain expressions
    inlined). leaf(w, data, off, rax, suffix) is the finished line of a leaf call whose return
    captured nothing: what decode's general path makes of it. quick(data, off, top, suffix,
    append) appends the same line made from the record pair at data[off:] (the call record, its
    return record right after it) and returns the tag of the record after the pair (8 bytes of it
    must be there); or appends nothing and returns None when that is not such a leaf call, or a
    frame at `top` or below is open. One unpack of only the words the line shows, the check, the
    line and the next tag in one call: what decode's loop over runs of leaf calls needs. Its lines
    end with `suffix` as compiled (the sink's, which never changes: decode passes no other).

    A line that depends only on what the function keys it by is kept (up to MEMO_MAX per site):
    the argument words, the bytes of C-string arguments up to their NUL, and rax (unless the
    function returns nothing). So a call repeated with the same values, as in a loop, is rendered
    once. Sites with other captures (buffers, wide strings) or renderers that read more than
    their word are rendered each time.
    """
    at = {i: (a_off, cap, j) for i, a_off, cap, j in strings}
    env = {"memo": {}, "MEMO_MAX": MEMO_MAX, "Q": _QUOTED, "QUOTED_MAX": QUOTED_MAX, "P": display + "(",
           "esc": escape_bytes}
    used = set()        # the argument words (1-6) the line reads
    exprs = []          # each shown argument's text, as an expression
    key = []            # what the line depends on, when that is known (None: not memoized)
    pre = []            # statements before the key is built (C strings' bytes)
    fill = []           # statements run only when the line is not kept
    for k, (i, op) in enumerate(plan.left_items):
        word = f"w{i + 1}"
        used.add(i + 1)
        if i in at:
            a_off, cap, j = at[i]
            env[f"f{k}"] = op.from_bytes
            if op.capture == CSTR:
                # a C string: its text is its bytes up to the NUL, quoted (see the op's
                # from_bytes) (the NUL is searched in place: one slice, the string's, per call)
                pre += [f"n{k} = data.find(b'\\0', off + {a_off}, off + {a_off + cap})",
                        f"b{k} = data[off + {a_off}:n{k}] if 0 <= n{k} - off - {a_off} < {op.limit} and {word} "
                        f"else None"]
                fill += [f"s{k} = Q.get(b{k}) if b{k} is not None else None",
                         f"if s{k} is None:",
                         f"    s{k} = f{k}({word}, data[off + {a_off}:off + {a_off + cap}])",
                         f"    if b{k} is not None and len(Q) < QUOTED_MAX:",
                         f"        Q[b{k}] = s{k}"]
                exprs.append(f"s{k}")
                if key is not None:
                    key.append(f"b{k}")     # (the text is the bytes': b is None for NULL)
                continue
            # every byte was copied (the quick path has no faults): the op's expression, or its
            # from_bytes renderer on the copy (and the length word of a buffer)
            n = None
            if op.capture in (LENGTH, CSTRN):
                lw = (j if op.capture == LENGTH else op.len_arg) + 1
                n = f"w{lw}"
                used.add(lw)
            expr = op.inline(word, area=f"off + {a_off}", n=n)
            if expr is None:
                expr = (f"f{k}({word}, data[off + {a_off}:off + {a_off + cap}])" if n is None else
                        f"f{k}({word}, data[off + {a_off}:off + {a_off + cap}], {n})" if op.capture == CSTRN else
                        f"f{k}({word}, data[off + {a_off}:off + {a_off} + min({n}, {cap})], {n})")
            exprs.append(expr)
            key = None
            continue
        expr = op.inline(word)
        if expr is None:
            env[f"f{k}"] = op.word
            expr = f"f{k}({word}, None)"
        exprs.append(expr)
        if op.capture != WORD:
            key = None
        elif key is not None:
            key.append(word)
    ret = plan.ret
    rexpr = repr(TEXTS["VOID"]) if ret is None else ret.inline("rax")
    if rexpr is None:
        env["fr"] = ret.word
        env["_void"] = lambda r, void=TEXTS["VOID"]: void if r is None else r
        rexpr = "_void(fr(rax, None))"
    if ret is not None and ret.capture != WORD:
        key = None
    text = " + \", \" + ".join(["P + " + exprs[0]] + exprs[1:]) if exprs else "P"
    fill += [f"text = {text}",
             "line = " + result_at_expr('(text + ")")', rexpr, LEAF_COLUMN)]
    if key is not None:
        items = key + (["rax"] if ret is not None else [])     # (a void function's rax is noise)
        key_expr = "(" + ", ".join(items) + ("," if items else "") + ")"

    def body(memo: str, tail: str, kept_with_tail: bool, done: str) -> List[str]:
        """The line's statements: from the site's memo or made, and `tail` after it (kept in the
        memo with the line when the tail cannot change); `done` is what is done with the line
        ({} in it)."""
        out = ["    " + x for x in pre]
        if key is None:
            return out + ["    " + x for x in fill] + ["    " + done.format(f"line + {tail}")]
        strings_ok = " and ".join(f"b{k} is not None" for k in range(len(exprs)) if f"b{k}" in key)
        out += [f"    key = {key_expr}" + (f" if {strings_ok} else None" if strings_ok else ""),
                f"    line = {memo}.get(key) if key is not None else None",
                "    if line is None:"] + ["        " + x for x in fill]
        if kept_with_tail:
            out.append(f"        line += {tail}")
        out += [f"        if key is not None and len({memo}) < MEMO_MAX:",
                f"            {memo}[key] = line",
                "    " + done.format("line" if kept_with_tail else f"line + {tail}")]
        return out

    words = sorted(used)
    leaf = ["def leaf(w, data, off, rax, suffix):"]
    if words:
        leaf.append(f"    {', '.join(f'w{i}' for i in words)}, = {', '.join(f'w[{i}]' for i in words)},")
    # quick's unpack: the used words, the slot and return address, the return record after the
    # string areas (RET_TAG, slot, return address, rax, captured?, output bytes) and the next
    # record's tag, for decode's loop. Its lines are kept with the suffix they were made with
    # (SUF, the sink's, which does not change): a call with another one is left to the general
    # path.
    layout = "".join("Q" if i in used else "8x" for i in range(1, 7))
    # A site whose returns copy nothing (no returned string, no output argument: `captures`
    # false) has both flags 0 in every return record that matches its slot and return address,
    # which the return trampoline wrote from the entry this site's trampoline pushed.
    flags = "QQ" if captures else "16x"
    env["U"] = struct.Struct(f"<8x{layout}QQ{size - HEAD}x4Q{flags}Q").unpack_from
    env["RET_TAG"] = RET_TAG
    env["SUF"] = suffix
    env["qmemo"] = {}
    names = [f"w{i}" for i in words] + ["slot", "ret", "tag", "rslot", "rret", "rax"] + \
        (["captured", "outn"] if captures else []) + ["nxt"]
    check = "tag != RET_TAG or rslot != slot or rret != ret or top <= slot" + \
        (" or captured or outn" if captures else "")
    quick = ["def quick(data, off, top, suffix, append):",
             f"    {', '.join(names)}, = U(data, off)",
             f"    if {check}:",
             "        return None"]
    src = leaf + body("memo", "suffix", False, "return {}") + quick + \
        body("qmemo", "SUF", True, "append({}); return nxt")
    exec(compile("\n".join(src) + "\n", f"<leaf {display}>", "exec"), env)
    return env["leaf"], env["quick"]



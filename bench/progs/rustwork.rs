// bench/progs/rustwork.rs: Rust's std: 4 threads (stacks with guard pages), a caught panic,
// collections.
use std::collections::HashMap;
use std::thread;

fn main() {
    let handles: Vec<_> = (0..4u64)
        .map(|t| thread::spawn(move || (0..200_000u64).map(|i| i.wrapping_mul(t + 1) % 7).sum::<u64>()))
        .collect();
    let total: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    let caught = std::panic::catch_unwind(|| {
        let v: Vec<i32> = Vec::new();
        v[1]
    });
    let mut words = HashMap::new();
    for w in "the quick brown fox jumps over the lazy dog the end".split(' ') {
        *words.entry(w).or_insert(0) += 1;
    }
    println!("threads sum {}, panic caught: {}, 'the' x{}", total, caught.is_err(), words["the"]);
}

// bench/progs/nodework.js: V8 start-up (code space, W^X flips) and a little JIT work.
let s = 0;
for (let i = 0; i < 200000; i++) s = (s + i * i) % 1000003;
console.log("node sum", s, JSON.stringify({a: [1, 2, 3]}));

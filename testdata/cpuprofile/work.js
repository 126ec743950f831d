// A small CPU-bound Node.js program for `node --cpu-prof` (see gen.sh):
// named functions, an anonymous one, a class method, JSON and regexp work
// in V8 built-ins, and garbage to collect.
'use strict';

function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

class Parser {
  parse(n) {
    let out = [];
    for (let i = 0; i < n; i++) {
      out.push(JSON.parse(JSON.stringify({ i, s: 'x'.repeat(i % 50), a: [i, i + 1] })));
    }
    return out.length;
  }
}

const matchAll = function (n) {
  const re = /(\w+)@(\w+)\.com/g;
  let c = 0;
  for (let i = 0; i < n; i++) {
    c += 'mail alice@example.com and bob@test.com now'.match(re).length;
  }
  return c;
};

function busy(ms, f) {
  const end = Date.now() + ms;
  let r = 0;
  while (Date.now() < end) r += f();
  return r;
}

let sink = 0;
sink += busy(150, () => fib(20));
sink += busy(100, () => new Parser().parse(200));
sink += busy(100, () => matchAll(500));
sink += busy(50, function () { return [...Array(2000).keys()].map(String).join(',').length; });
setTimeout(() => {
  sink += busy(30, () => fib(18));
  if (sink < 0) console.log(sink);
}, 20);

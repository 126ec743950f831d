// A lambda, in a function template, whose operator() is neither inlined
// nor cloned (noipa), with code inlined into it: GCC puts that operator()'s
// code inside the enclosing function's entry, in its closure type, as
// libstdc++'s fast_float has it. And a class whose constructor and
// destructor are emitted once under two names each (C1/C2, D1/D2 at one
// address). See testdata/symbolize/gen.sh, step cxxnest.
#include <cstdio>
#include <cstdlib>

static inline long mix(long x) { return (x * 2654435761L) ^ (x >> 7); }

struct Counter {
	long n;
	explicit Counter(long start);
	~Counter();
};

Counter::Counter(long start) : n(mix(start)) {}
Counter::~Counter() { std::printf("%ld\n", n); }

template <typename T> T __attribute__((noinline)) sum(T n) {
	T s = 0;
	auto step = [&s](T i) __attribute__((noinline, noipa)) { s += mix(i); };
	for (long i = 0; i < n; i++)
		step(i);
	return s;
}

int main(int argc, char **argv) {
	long n = argc > 1 ? std::atol(argv[1]) : 1000;
	Counter c(sum<long>(n) + sum<int>(int(n)));
	return 0;
}

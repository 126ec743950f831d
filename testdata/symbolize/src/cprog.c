/* cprog: a C program (PIE) that burns CPU in inlined helpers and in libwork.so. */
#include <stdio.h>
#include <stdlib.h>
#include "work.h"

static inline unsigned mix(unsigned x)
{
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	return x ^ (x >> 15);
}

static inline unsigned step(unsigned x, int i)
{
	return mix(x + (unsigned)i) + mix(x ^ (unsigned)i);
}

__attribute__((noinline)) unsigned hot_loop(unsigned seed, int n)
{
	for (int i = 0; i < n; i++)
		seed = step(seed, i);
	return seed;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

__attribute__((noinline)) unsigned sort_some(unsigned seed, int n)
{
	unsigned *v = malloc(sizeof *v * (size_t)n);
	for (int i = 0; i < n; i++)
		v[i] = seed = mix(seed + (unsigned)i);
	qsort(v, (size_t)n, sizeof *v, cmp_uint);
	unsigned r = v[n / 2];
	free(v);
	return r;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 40;
	unsigned s = 1;
	double d = 0;
	unsigned long long h = 0;
	for (int it = 0; it < iters; it++) {
		s = hot_loop(s, 2000000);
		s += sort_some(s, 20000);
		d += work_series(1000000);
		h ^= work_hash("the quick brown fox jumps over the lazy dog", 20000);
	}
	printf("%u %f %llu\n", s, d, h);
	return 0;
}

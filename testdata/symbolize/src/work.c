/* libwork.so: exported functions with static helpers that -O2 inlines. */
#include "work.h"

static inline unsigned long long rotl(unsigned long long x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline unsigned long long fnv_step(unsigned long long h, unsigned char c)
{
	h ^= c;
	h *= 0x100000001b3ULL;
	return rotl(h, 5);
}

unsigned long long work_hash(const char *s, int rounds)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	for (int r = 0; r < rounds; r++)
		for (const char *p = s; *p; p++)
			h = fnv_step(h, (unsigned char)*p);
	return h;
}

static inline double term(int k)
{
	double d = 2.0 * k + 1.0;
	return (k & 1 ? -4.0 : 4.0) / d;
}

double work_series(int n)
{
	double sum = 0;
	for (int k = 0; k < n; k++)
		sum += term(k);
	return sum;
}

/* burnt: a small CPU-bound program with named threads, for perf record.
 * Two worker threads ("hash worker", a name with a space, and "sorter")
 * and the main thread. mix() is inlined into hash_block() at -O2, so
 * DWARF call graphs show inline frames. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline uint64_t mix(uint64_t h, uint64_t v) {
	h ^= v;
	h *= 0x100000001b3ULL;
	return h ^ (h >> 29);
}

__attribute__((noinline)) static uint64_t hash_block(const uint64_t *p, size_t n) {
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = mix(h, p[i]);
	return h;
}

__attribute__((noinline)) static uint64_t hash_loop(double until) {
	static uint64_t buf[4096];
	uint64_t acc = 0;
	for (size_t i = 0; i < 4096; i++)
		buf[i] = i * 2654435761u;
	while (seconds() < until)
		acc += hash_block(buf, 4096);
	return acc;
}

static int cmp(const void *a, const void *b) {
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static uint64_t sort_loop(double until) {
	enum { N = 20000 };
	uint32_t *v = malloc(N * sizeof *v);
	uint64_t acc = 0, seed = 1;
	while (seconds() < until) {
		for (int i = 0; i < N; i++) {
			seed = seed * 6364136223846793005ULL + 1;
			v[i] = (uint32_t)(seed >> 33);
		}
		qsort(v, N, sizeof *v, cmp);
		acc += v[N / 2];
	}
	free(v);
	return acc;
}

static double until;

static void *hash_thread(void *arg) {
	(void)arg;
	pthread_setname_np(pthread_self(), "hash worker");
	return (void *)(uintptr_t)hash_loop(until);
}

static void *sort_thread(void *arg) {
	(void)arg;
	pthread_setname_np(pthread_self(), "sorter");
	return (void *)(uintptr_t)sort_loop(until);
}

__attribute__((noinline)) static uint64_t spin_main(double t) {
	uint64_t x = 0;
	while (seconds() < t)
		x += (uint64_t)strlen("burnt main thread spins here");
	return x;
}

int main(int argc, char **argv) {
	double secs = argc > 1 ? atof(argv[1]) : 0.3;
	pthread_t a, b;
	until = seconds() + secs;
	pthread_create(&a, NULL, hash_thread, NULL);
	pthread_create(&b, NULL, sort_thread, NULL);
	uint64_t r = spin_main(until);
	void *ra, *rb;
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	printf("%llu\n", (unsigned long long)(r + (uintptr_t)ra + (uintptr_t)rb) % 10);
	return 0;
}

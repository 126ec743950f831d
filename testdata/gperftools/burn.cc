// burn.cc: a small CPU-bound program profiled by gperftools' libprofiler to
// make the fixtures in this directory. See gen.sh for the exact build and run
// lines and README.md for what each file is.
//
// Usage: burn OUT.prof MILLISECONDS THREADS MODE FLUSH_EVERY_MS
//   MODE "stop":    ProfilerStart(OUT), burn, ProfilerStop(): a complete file.
//   MODE "noexit":  ProfilerStart(OUT), burn, ProfilerFlush(), then _exit(0)
//                   without ProfilerStop: records, but no trailer and no maps.
//   MODE "deleted": as "stop", but unlink(argv[0]) first, so the maps text
//                   names the binary with a " (deleted)" suffix.
//   MODE "hot":     as "stop", but all the time goes to one call path,
//                   work -> middle -> leaf_mix, so nearly every record has the
//                   same second (and third) frame.
// The main thread calls ProfilerFlush() every FLUSH_EVERY_MS (0: never), which
// empties the profiler's hash table into the file, so later samples at the
// same stack are written again as separate records (as evictions do).
// The sampling frequency comes from CPUPROFILE_FREQUENCY (default 100 Hz).
#include <gperftools/profiler.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static bool hot;

static double now_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static unsigned long leaf_mix(unsigned long x) {
  for (int i = 0; i < 2000; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
  return x;
}

__attribute__((noinline)) static unsigned long leaf_div(unsigned long x) {
  for (int i = 1; i < 400; i++) x += (x | 1) % (unsigned long)(i + 7);
  return x;
}

// Recursion: a leaf whose caller is itself, so a frame's return address can
// sit right after the leaf's own PC.
__attribute__((noinline)) static unsigned long recurse(int depth, unsigned long x) {
  if (depth == 0) return leaf_mix(x);
  x = recurse(depth - 1, x ^ (unsigned long)depth);
  return x + 1;
}

__attribute__((noinline)) static unsigned long middle(int which, unsigned long x) {
  if (hot) which = 0;
  switch (which % 3) {
    case 0: return leaf_mix(x);
    case 1: return leaf_div(x);
    default: return recurse(1 + which % 5, x);
  }
}

__attribute__((noinline)) static void work(double ms, int seed, double flush_every) {
  double start = now_ms(), end = start + ms, next_flush = start + flush_every;
  unsigned long x = (unsigned long)seed;
  int i = seed;
  while (now_ms() < end) {
    x = middle(i++, x);
    if (flush_every > 0 && now_ms() >= next_flush) {
      ProfilerFlush();
      next_flush += flush_every;
    }
  }
  sink += x;
}

struct Arg { double ms; int seed; };

static void* thread_main(void* p) {
  Arg* a = (Arg*)p;
  ProfilerRegisterThread();
  work(a->ms, a->seed, 0);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: burn OUT.prof MILLISECONDS THREADS stop|noexit|deleted FLUSH_EVERY_MS\n");
    return 2;
  }
  const char* out = argv[1];
  double ms = atof(argv[2]);
  int threads = atoi(argv[3]);
  const char* mode = argv[4];
  double flush_every = atof(argv[5]);
  hot = strcmp(mode, "hot") == 0;
  if (!ProfilerStart(out)) {
    fprintf(stderr, "ProfilerStart(%s) failed\n", out);
    return 1;
  }
  pthread_t tid[16];
  Arg args[16];
  if (threads > 16) threads = 16;
  for (int t = 1; t < threads; t++) {
    args[t].ms = ms;
    args[t].seed = t * 1000;
    pthread_create(&tid[t], 0, thread_main, &args[t]);
  }
  work(ms, 0, flush_every);
  for (int t = 1; t < threads; t++) pthread_join(tid[t], 0);
  if (strcmp(mode, "noexit") == 0) {
    ProfilerFlush();
    _exit(0);
  }
  if (strcmp(mode, "deleted") == 0 && unlink(argv[0]) != 0) {
    perror("unlink");
    return 1;
  }
  ProfilerStop();
  return 0;
}

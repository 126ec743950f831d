/* libwork: a shared library the fixtures load at a random base. */
#ifndef WORK_H
#define WORK_H
unsigned long long work_hash(const char *s, int rounds);
double work_series(int n);
#endif

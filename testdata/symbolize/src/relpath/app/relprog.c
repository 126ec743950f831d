/* Built from app/ inside a build tree mapped to "." (-ffile-prefix-map), as
   Debian builds its packages: DW_AT_comp_dir is "./app", a relative path,
   like "./csu" in libc's debug file. See testdata/symbolize/gen.sh. */
#include <stdio.h>
#include <stdlib.h>

#include "../lib/mix.h"

static double __attribute__((noinline)) spin(long n) {
	unsigned long state = 88172645463325252UL;
	double s = 0;
	for (long i = 0; i < n; i++)
		s += mix(&state, i);
	return s;
}

static double __attribute__((noinline)) twice(long n) { return spin(n) + spin(n / 2); }

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 1000;
	printf("%f\n", twice(n));
	return 0;
}

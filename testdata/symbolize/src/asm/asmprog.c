/* Calls assembly (asmfn.S) in a loop; see testdata/symbolize/gen.sh. */
#include <stdio.h>
#include <stdlib.h>

long asm_typed(long);

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 1000, s = 0;
	for (long i = 0; i < n; i++)
		s += asm_typed(i);
	printf("%ld\n", s);
	return 0;
}

/* Inline helpers in a directory of their own: the line tables name this
   file by a relative directory ("../lib" from app/), as glibc's headers
   ("../sysdeps/...") are named in its debug file. */
static inline unsigned long step(unsigned long x) {
	x ^= x << 13;
	x ^= x >> 7;
	return x ^ (x << 17);
}

static inline double mix(unsigned long *state, long i) {
	*state = step(*state + (unsigned long)i);
	return (double)(*state % 1000) / 1000.0;
}

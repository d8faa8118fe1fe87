/*
 * ub-probe - a signed overflow on request, for t/8095: in a sanitizer
 * build UBSan must put it in the test log (lib/sanreport.c) and fail.
 *
 *   ub-probe N    INT_MAX + N: undefined for N > 0; exit 0 otherwise
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "messages.h"

int main(int argc, char **argv)
{
	volatile int x;

	if (argc != 2) {
		warn("usage: ub-probe N");
		return 2;
	}
	x = atoi(argv[1]);
	x += INT_MAX;
	return x == INT_MAX ? 0 : 3;
}

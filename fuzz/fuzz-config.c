/*
 * fuzz-config - the YAML config loader of dc-gen (dc-gen/config.c,
 * dc-config(5)), without the library lookups that follow it.
 * Exit: 0 for a config it accepts, 4 (with one line) for a bad one.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "gen.h"
#include "messages.h"

int main(int argc, char **argv)
{
	struct config cfg;

	dc_messages_init("fuzz-config");
	if (argc != 2)
		die_status(2, "usage: fuzz-config CONFIG.yaml");
	memset(&cfg, 0, sizeof(cfg));
	config_load(&cfg, argv[1]);
	config_free(&cfg);
	return 0;
}

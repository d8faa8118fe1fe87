/*
 * dc-client-probe - stand in for dc-collect's uprobe on the client hooks.
 *
 * This program defines dc_client_register and dc_client_unregister itself
 * and exports them (-export-dynamic), so when libdcclient.so is preloaded
 * its constructor's and destructor's calls land here.  Each prints one
 * line "register VERSION PID" / "unregister VERSION PID" on stdout with
 * write(2), and main prints "main PID", so t/4100-wrap.t can check that
 * the hooks run, in order, with the right arguments.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void say(const char *what, unsigned version, int pid)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%s %u %d\n", what, version, pid);

	if (write(1, line, (size_t)n) != n)
		_exit(1);
}

void dc_client_register(unsigned version, int pid)
{
	say("register", version, pid);
}

void dc_client_unregister(unsigned version, int pid)
{
	say("unregister", version, pid);
}

int main(void)
{
	say("main", 0, (int)getpid());
	return 0;
}

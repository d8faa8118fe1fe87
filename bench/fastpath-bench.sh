#!/bin/sh
# bench/fastpath-bench.sh - user-level calls: untraced, the interposition
# floor, the fast path and the uprobe path, each with and without the
# syscalls layer, on W1-W4, in one run (called by bench/run, or alone:
# DC_BUILD_DIR=build bench/fastpath-bench.sh, as root).
#
#   W1  write(fd, 1 byte) to /dev/null
#   W2  open + pwrite 4 KiB + close
#   W3  fwrite 64 KiB to /dev/null
#   W4  an HDF5 dataset write (create, write 4 KiB, close, flush), with
#       the hdf5 layer traced too
#
# Figures are the workload process's CPU time per iteration of its loop
# (user + system: a uprobe's or a tracepoint's programs run on it; time
# spent waiting for a CPU on a loaded machine does not count), medians of
# FAST_REPS runs, the configurations interleaved run by run.  "added" is
# the median of the per-run differences from the untraced run of the
# same repetition.  Untraced, floor and fast-path runs use a private copy
# of libc (see below); the uprobe path's runs use the system libc, which
# its spec names, with their own untraced base.  The collector's own CPU
# time is not in these figures.
#
# The "in one process" table runs W1 and W2 in blocks of 1,000 calls
# through the preloaded wrappers alternating with blocks through libc's
# own functions (bench/iowork.c w1pair, w2pair): the difference is the
# wrapper's cost alone, with any load change cancelled out.
#
# FAST_N, FAST_NU (uprobe path loops, about 100 times slower),
# FAST_REPS and FAST_PAIRS (the in-process table's runs) set the sizes;
# FAST_RAW=FILE keeps every run's figure; FAST_ONLY="w4 pair" (any of
# w1-w4, pair for the in-process table, design2, unrelated, execs) runs
# those tables' rows and nothing else.
#
# The execs table: FAST_EXECS (200) x fork + exec of /bin/true + wait,
# and as many posix_spawn + wait, wall time each, untraced and traced
# (the fast path), with the preload kept (the child joins the fast path;
# the client reads the program's headers before each exec) and dropped
# (the child gets uprobes, placed before its exec at its request; the
# client makes a posix_spawn child itself then).
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${DC_BUILD_DIR:-$src/build}" && pwd)
PATH="$build/dc-gen:$build/dc-sign:$build/dc-collect:$build/dc-aggregate:$PATH"
export DC_DATA_DIR="$src/configs"
export DC_CLIENT_LIB="$build/dc-wrap/.libs/libdcclient.so"
N=${FAST_N:-1000000}
NU=${FAST_NU:-20000}
REPS=${FAST_REPS:-5}
work=$(mktemp -d /tmp/dc-fastbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

cc -O2 -shared -fPIC -o floor.so "$src/bench/preload-floor.c" -ldl
h5=
if [ -f /usr/include/hdf5/serial/hdf5.h ]; then
	h5="-DWITH_HDF5 -I/usr/include/hdf5/serial -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5"
fi
# shellcheck disable=SC2086
cc -O2 -o iowork "$src/bench/iowork.c" $h5
dc-sign --gen-key -k key >/dev/null
# A private copy of libc for every run but the uprobe path's: a uprobe is
# set in the library's file, so another collector's uprobes on the
# system's libc (other users of a shared machine) would slow every write()
# here.  The uprobe-path rows use the system's libc, which their spec
# names.
mkdir lib
cp "$(ldd ./iowork | sed -n 's/.*libc.so.6 => \([^ ]*\).*/\1/p')" lib/libc.so.6
PRIV="LD_LIBRARY_PATH=$work/lib"

spec() { # spec NAME LAYERS...
	_n=$1; shift
	{ echo "layers:"; for l in "$@"; do echo "  - $l"; done; } >"$_n.yaml"
	dc-gen "$_n.yaml" >"$_n.json" 2>/dev/null
	dc-sign -k key -o "$_n.sig" "$_n.json"
}
spec user posix stdio
spec usersys posix stdio syscalls
spec sys syscalls
# W4 with the hdf5 layer too: its HDF5 calls on the fast path or by
# uprobe (the floor wraps them as well).
spec userh5 posix stdio hdf5
spec usersysh5 posix stdio hdf5 syscalls
lay=

cpu() { sed -n 's/.*cpu_ns_per_iteration=\([0-9.]*\).*/\1/p' | tail -n 1; }
added() { sed -n 's/.*added_ns=\([-0-9.]*\).*/\1/p' | tail -n 1; }
# median FILE KEY: the median of the values recorded under KEY
median() {
	awk -v k="$2" '$1 == k { print $2 }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "nan";
			else if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# diffmed FILE KEY BASE: median over repetitions of KEY - BASE
diffmed() {
	awk -v k="$2" -v b="$3" '$1 == k { x[$3] = $2 } $1 == b { y[$3] = $2 }
		END { for (r in x) if (r in y) print x[r] - y[r] }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "nan";
			else if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

plain() { env $PRIV ./iowork "$@" 2>&1 >/dev/null; }
sysplain() { ./iowork "$@" 2>&1 >/dev/null; }
floor() { env $PRIV LD_PRELOAD="$work/floor.so" ./iowork "$@" 2>&1 >/dev/null; }
# traced SPEC [--no-preload] ARGS: the stream is kept (and checked for
# drops), not aggregated: the collector's cost is the subject.
traced() {
	_s=$1; shift
	_o="" _e="$PRIV"
	if [ "$1" = --no-preload ]; then _o=$1 _e=""; shift; fi
	rm -f s.dcs
	# shellcheck disable=SC2086
	dc-collect -k key --output s.dcs $_o "$_s.sig" -- env $_e ./iowork "$@" 2>c.err >/dev/null
	if grep -q "dropped" c.err && ! grep -q " 0 dropped" c.err; then
		echo "fastpath-bench: drops: $(grep dropped c.err)" >&2
	fi
	cat c.err
}

ONLY=${FAST_ONLY:-}
want() { [ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) true ;; *) false ;; esac; }

echo "load before: $(uptime)"
if want w1 || want w2 || want w3 || want w4; then
	echo
	echo "| workload (CPU ns per iteration) | untraced | floor added | fast path added | fast / floor | uprobe path added | syscalls layer alone added | fast path + syscalls added (sum of the two alone) | uprobe path + syscalls added |"
	echo "|---|---|---|---|---|---|---|---|---|"
fi
# A collector's exit leaves the kernel work to finish (programs freed
# after an RCU grace period, uprobes removed): the next run would pay for
# it.  So every traced run is followed by a pause, and each repetition
# starts its configurations at a different one.
# A collector that gave processes uprobes of their own (fallback.c) leaves
# taking their tracefs events down to a child (dc-collect-undo), seconds
# long, which slows the next collector's placing of events: wait for it
# too (60 s at most).
settle() {
	sleep "${FAST_SETTLE:-1}"
	_w=0
	while pgrep -x dc-collect-undo >/dev/null && [ $_w -lt 300 ]; do
		sleep 0.2; _w=$((_w + 1))
	done
}
# cfg KEY NAME N-FAST N-UPROBE [FILE]: one run of one configuration
cfg() {
	_k=$1 _name=$2 _nf=$3 _nu=$4; shift 4
	case $_k in
	b) plain "$_name" "$_nf" "$@" ;;
	fl) floor "$_name" "$_nf" "$@" ;;
	f) traced "user$lay" "$_name" "$_nf" "$@"; settle ;;
	s) traced sys "$_name" "$_nf" "$@"; settle ;;
	fs) traced "usersys$lay" "$_name" "$_nf" "$@"; settle ;;
	bu) sysplain "$_name" "$_nu" "$@" ;;
	u) traced "user$lay" --no-preload "$_name" "$_nu" "$@"; settle ;;
	us) traced "usersys$lay" --no-preload "$_name" "$_nu" "$@"; settle ;;
	esac
}
CFGS="b fl f s fs bu u us"
one() { # one NAME N-FAST N-UPROBE [FILE]
	_name=$1 _nf=$2 _nu=$3; shift 3
	_t=$work/$_name.txt
	: >"$_t"
	for _r in $(seq "$REPS"); do
		# this repetition's order: CFGS rotated by _r
		_order=$(echo $CFGS | awk -v r="$_r" '{ for (i = 0; i < NF; i++)
			printf "%s ", $((i + r) % NF + 1) }')
		for _c in $_order; do
			echo "$_c $(cfg "$_c" "$_name" "$_nf" "$_nu" "$@" | cpu) $_r" >>"$_t"
		done
	done
	awk -v name="$_name x $_nf" -v b="$(median "$_t" b)" \
	    -v fl="$(diffmed "$_t" fl b)" -v f="$(diffmed "$_t" f b)" \
	    -v u="$(diffmed "$_t" u bu)" -v s="$(diffmed "$_t" s b)" \
	    -v fs="$(diffmed "$_t" fs b)" -v us="$(diffmed "$_t" us bu)" 'BEGIN {
		r = fl > 0 ? sprintf("%.2fx", f / fl) : "-"
		printf "| %s | %.0f | %+.0f | %+.0f | %s | %+.0f | %+.0f | %+.0f (%+.0f) | %+.0f |\n",
			name, b, fl, f, r, u, s, fs, f + s, us }'
	[ -z "${FAST_RAW:-}" ] || cat "$_t" >>"$FAST_RAW"
}
want w1 && one w1 "$N" "$NU"
want w2 && one w2 $((N / 10)) "$((NU / 2))" "$work/f2"
want w3 && one w3 $((N / 10)) "$((NU / 2))"
if [ -n "$h5" ] && want w4; then
	lay=h5
	one w4 1000 200 "$work/f4.h5"
	lay=
fi
# The wrapper's cost alone, in one process.  A run's figure moves with
# the machine's state (other users, the host) by more than the
# difference measured, so the floor and the fast path run in pairs, the
# pair's order alternating, and each pair gives a ratio: the table has
# the ratio of the medians and, as its spread, the median, lowest and
# highest of the per-pair ratios.  FAST_PAIRS sets the number of pairs
# (default 2 x FAST_REPS: a run takes a second or two).
PAIRS=${FAST_PAIRS:-$((2 * REPS))}
pair() { # pair NAME N [FILE]
	_t=$work/$1.pair
	: >"$_t"
	for _r in $(seq "$PAIRS"); do
		if [ $((_r % 2)) = 1 ]; then
			echo "fl $(floor "$@" | added) $_r" >>"$_t"
			echo "f $(traced user "$@" | added) $_r" >>"$_t"
		else
			echo "f $(traced user "$@" | added) $_r" >>"$_t"
			echo "fl $(floor "$@" | added) $_r" >>"$_t"
		fi
		settle
	done
	_q=$(awk '$1 == "fl" { fl[$3] = $2 } $1 == "f" { f[$3] = $2 }
		END { for (r in f) if (fl[r] > 0) print f[r] / fl[r] }' "$_t" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan nan nan"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }')
	awk -v name="$1 x $2" -v fl="$(median "$_t" fl)" -v f="$(median "$_t" f)" -v q="$_q" 'BEGIN {
		split(q, r, " ")
		printf "| %s | %+.1f | %+.1f | %.2fx | %sx (%s - %s) |\n", name, fl, f,
			(fl > 0 ? f / fl : 0), r[1], r[2], r[3] }'
	[ -z "${FAST_RAW:-}" ] || cat "$_t" >>"$FAST_RAW"
}
if want pair; then
	echo
	echo "| in one process: added CPU ns per call of the loop (median over 1,000-call block pairs, median of $PAIRS runs) | floor | fast path | fast / floor | per-pair ratio: median (lowest - highest) |"
	echo "|---|---|---|---|---|"
	pair w1pair "$N"
	pair w2pair $((N / 10)) "$work/f2"
fi

# Design 2: a 5-byte NOP probe site (the wrapper would carry one and the
# collector attach its uprobe programs to it).  From 6.18 (x86-64) the
# kernel turns a uprobe on a 5-byte NOP into a call to a trampoline that
# makes the uprobe system call, after the first hit (which traps); a
# uprobe on an ordinary instruction traps on every hit.
site_spec() { # site_spec NAME FUNCTION
	cat >"$1.yaml" <<EOC
layers:
  - name: SITE
    kind: uprobe
    target: $work/iowork
    functions: [$2]
EOC
	dc-gen "$1.yaml" >"$1.json" 2>/dev/null
	dc-sign -k key -o "$1.sig" "$1.json"
}
if want design2; then
	site_spec nop dc_nop_site
	site_spec trap dc_trap_site
	_t=$work/sites.txt
	: >"$_t"
	bt=$(command -v bpftrace || :)
	for _r in $(seq "$REPS"); do
		for _k in nop trap; do
			echo "b$_k $(plain "$_k" "$NU" | cpu) $_r" >>"$_t"
			echo "d$_k $(traced "$_k" "$_k" "$NU" | cpu) $_r" >>"$_t"
			settle
			if [ -n "$bt" ]; then
				for _p in uprobe uretprobe; do
					_c=$("$bt" -e "$_p:$work/iowork:dc_${_k}_site { @n = count(); }" \
						-c "$work/iowork $_k $NU" 2>&1 | cpu)
					echo "$_p$_k $_c $_r" >>"$_t"
				done
			fi
		done
	done
	echo
	echo "| design 2, x $NU calls: added CPU ns per hit | 5-byte NOP site (optimized: call + uprobe syscall) | ordinary first instruction (int3 trap) |"
	echo "|---|---|---|"
	row2() { # row2 LABEL KEY
		awk -v l="$1" -v n="$(diffmed "$_t" "${2}nop" bnop)" -v t="$(diffmed "$_t" "${2}trap" btrap)" \
			'BEGIN { if (n != "nan") printf "| %s | %+.0f | %+.0f |\n", l, n, t }'
	}
	row2 "dc-collect: entry + return programs, a full record" d
	row2 "bpftrace: entry probe only, a count" uprobe
	row2 "bpftrace: return probe only, a count" uretprobe
fi

# An unrelated process while a collector traces a command with the posix
# layer: the fast path sets no uprobe on the functions it records.  Its
# loop runs N calls against its base of N (20,000 calls, 4 ms, moved
# with the first milliseconds after the collector's start by as much as
# +28 ns a call, in the runs of sessions 10 and 11, which 1,000,000 calls
# do not show); the uprobe path's, 100 times slower, NU against a base
# of NU.
unrelated() { # unrelated CALLS [--no-preload]
	_n=$1; shift
	rm -f s.dcs ready stop
	dc-collect -k key --output s.dcs --ready-file ready "$@" user.sig -- \
		sh -c 'while [ ! -e stop ]; do sleep 0.1; done' 2>/dev/null &
	_c=$!
	while [ ! -e ready ]; do sleep 0.1; done
	_r=$(sysplain w1 "$_n" | cpu)
	touch stop
	wait "$_c" 2>/dev/null || :
	settle
	echo "$_r"
}
if want unrelated; then
	_t=$work/unrelated.txt
	: >"$_t"
	for _r in $(seq "$REPS"); do
		echo "b $(sysplain w1 "$N" | cpu) $_r" >>"$_t"
		echo "f $(unrelated "$N") $_r" >>"$_t"
		echo "bu $(sysplain w1 "$NU" | cpu) $_r" >>"$_t"
		echo "u $(unrelated "$NU" --no-preload) $_r" >>"$_t"
	done
	echo
	echo "| unrelated process, W1 (system libc), while a -- COMMAND collector with posix+stdio runs | calls | CPU ns/call | added |"
	echo "|---|---|---|---|"
	awk -v n="$N" -v nu="$NU" -v b="$(median "$_t" b)" -v f="$(median "$_t" f)" \
	    -v bu="$(median "$_t" bu)" -v u="$(median "$_t" u)" \
	    -v df="$(diffmed "$_t" f b)" -v du="$(diffmed "$_t" u bu)" 'BEGIN {
		printf "| no collector | %d | %.0f | - |\n", n, b
		printf "| collector, fast path (default) | %d | %.0f | %+.0f |\n", n, f, df
		printf "| no collector | %d | %.0f | - |\n", nu, bu
		printf "| collector, --no-preload (uprobes) | %d | %.0f | %+.0f |\n", nu, u, du }'
fi
wall() { sed -n 's/.*ns_per_iteration=\([0-9.]*\) .*/\1/p' | tail -n 1; }
if want execs; then
	_t=$work/execs.txt _x=${FAST_EXECS:-200}
	: >"$_t"
	for _r in $(seq "$REPS"); do
		for _how in execs spawns; do
			for _c in kept clean; do
				_a=; [ "$_c" = clean ] && _a=clean
				echo "b$_how$_c $(LD_PRELOAD="$DC_CLIENT_LIB" ./iowork $_how "$_x" /bin/true $_a 2>&1 | wall) $_r" >>"$_t"
				rm -f s.dcs
				dc-collect -k key --output s.dcs user.sig -- \
					./iowork $_how "$_x" /bin/true $_a 2>c.err >/dev/null
				echo "f$_how$_c $(wall <c.err) $_r" >>"$_t"
				settle
			done
		done
	done
	echo
	echo "| $_x x fork + exec /bin/true + wait, or posix_spawn + wait (wall us each) | untraced | fast path | added |"
	echo "|---|---|---|---|"
	for _k in "execskept|fork + exec, preload kept: the child joins the fast path" \
		  "execsclean|fork + exec, preload dropped: uprobes placed before each exec" \
		  "spawnskept|posix_spawn, preload kept: glibc's spawn, the child joins" \
		  "spawnsclean|posix_spawn, preload dropped: the client makes the child, uprobes placed before"; do
		_c=${_k%%|*}
		awk -v what="${_k#*|}" -v b="$(median "$_t" "b$_c")" -v f="$(median "$_t" "f$_c")" \
		    -v d="$(diffmed "$_t" "f$_c" "b$_c")" 'BEGIN {
			printf "| %s | %.0f | %.0f | %+.0f |\n", what, b / 1e3, f / 1e3, d / 1e3 }'
	done
fi
echo
echo "load after: $(uptime)"

#!/bin/bash
# record.sh [MAJOR...] — `make captures`: records the committed captures of
# real traffic (not CI). For each PostgreSQL major Debian ships (13 bullseye,
# 15 bookworm, 17 trixie, 18 sid, 19 experimental) it starts a throwaway
# server inside a debootstrap chroot (chroot.sh; the host's packages stay
# untouched), records its loopback port with tcpdump or Wireshark's dumpcap
# while the major's own clients (psql, pgbench, pg_recvlogical,
# pg_receivewal, pg_basebackup) and internal/capturework run the workloads
# README.md lists, has tshark count the messages pgtrace decodes, and writes
# pgNN-{sessions.pcapng,logical.pcap,physical.pcapng,backup.pcap}.gz next
# to this script (OUT=DIR: elsewhere).
#
# Needs root, debootstrap, tcpdump, go and Debian's mirror. CHROOTS says
# where the chroots live (default /var/tmp/pgspec-chroots, outside the repo);
# CAPTURE_KINDS which files to record again (default all four: sessions
# logical physical backup).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
chroots=${CHROOTS:-/var/tmp/pgspec-chroots}
out=${OUT:-$here}
majors=("$@")
kinds=" ${CAPTURE_KINDS:-sessions logical physical backup} "
[ ${#majors[@]} -gt 0 ] || majors=(13 15 17 18 19)

for tool in debootstrap tcpdump go; do
	command -v $tool >/dev/null || { echo "record.sh: $tool is needed" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "record.sh: run as root (chroot, tcpdump)" >&2; exit 1; }

work=$(mktemp -d)
recorder_pid=
used_roots=()
cleanup() {
	[ -z "$recorder_pid" ] || kill -INT "$recorder_pid" 2>/dev/null || true
	[ -z "${root:-}" ] || stop_server
	# chroot.sh mounted /proc and /dev/shm: an rm -rf of the chroots must not
	# find them there.
	for r in "${used_roots[@]}"; do
		umount "$r/dev/shm" "$r/proc" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

# The workload client the libpq tools cannot be: binary values, CopyFail,
# hot standby feedback, primary status requests.
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/capturework" ./internal/capturework)
(cd "$repo" && go build -o "$work/pgtrace" ./cmd/pgtrace)

suite_of() {
	case $1 in
	13) echo bullseye ;; 15) echo bookworm ;; 17) echo trixie ;; 18) echo sid ;;
	19) echo sid+experimental ;; *) echo "record.sh: no Debian suite known for PostgreSQL $1" >&2; exit 1 ;;
	esac
}

# pg runs a program of this major inside the chroot as the postgres user,
# with libpq pointed at the server's TCP port.
pg() {
	chroot --userspec=postgres:postgres "$root" env -i \
		PATH="/usr/lib/postgresql/$major/bin:/usr/bin:/bin" HOME=/var/lib/postgresql LANG=C \
		PGHOST=127.0.0.1 PGPORT="$port" PGDATABASE=postgres PGCONNECT_TIMEOUT=10 "$@"
}
# as USER PASSWORD PROGRAM... runs a client of this major as a database role.
as() {
	local user=$1 password=$2
	shift 2
	pg env PGUSER="$user" PGPASSWORD="$password" "$@"
}
# sql runs setup statements over the unix socket (not recorded).
sql() { pg psql -X -q -v ON_ERROR_STOP=1 -h /tmp -U postgres "$@"; }
lsn() { sql -At -c "select pg_current_wal_lsn()"; }

start_server() {
	data=/var/tmp/pgspec-pg$major
	rm -rf "$root$data" "$root/tmp/pgspec-"*
	pg initdb -D "$data" -U postgres -A trust -E UTF8 --locale=C --wal-segsize=1 >/dev/null
	cat >>"$root$data/postgresql.conf" <<-EOF
		listen_addresses = '127.0.0.1'
		port = $port
		unix_socket_directories = '/tmp'
		wal_level = logical
		max_wal_senders = 10
		max_replication_slots = 10
		max_prepared_transactions = 10
		logical_decoding_work_mem = 64kB
		fsync = off
		shared_buffers = 16MB
	EOF
	# 16 and later can stream every transaction at once: no 64 kB of changes needed.
	[ "$major" -lt 16 ] || echo "debug_logical_replication_streaming = immediate" >>"$root$data/postgresql.conf"
	# 17 and later: WAL summaries, which an incremental backup needs.
	[ "$major" -lt 17 ] || echo "summarize_wal = on" >>"$root$data/postgresql.conf"
	cat >"$root$data/pg_hba.conf" <<-EOF
		local all all trust
		local replication all trust
		host all password_user 127.0.0.1/32 password
		host all md5_user 127.0.0.1/32 md5
		host all all 127.0.0.1/32 scram-sha-256
		host replication all 127.0.0.1/32 scram-sha-256
	EOF
	pg pg_ctl -D "$data" -l "$data/server.log" -w start >/dev/null
	# Keep the base backup small: the workload lives in postgres, the templates go.
	sql <<-EOF
		SET password_encryption = 'md5';
		CREATE ROLE md5_user LOGIN PASSWORD 'md5-secret';
		SET password_encryption = 'scram-sha-256';
		CREATE ROLE password_user LOGIN PASSWORD 'clear-secret';
		CREATE ROLE scram_user LOGIN SUPERUSER PASSWORD 'scram-secret';
		CREATE ROLE repl_user LOGIN REPLICATION PASSWORD 'repl-secret';
		ALTER DATABASE template0 IS_TEMPLATE false;
		ALTER DATABASE template1 IS_TEMPLATE false;
		DROP DATABASE template0;
		DROP DATABASE template1;
	EOF
}

stop_server() {
	[ -n "${data:-}" ] || return 0
	pg pg_ctl -D "$data" -m immediate stop >/dev/null 2>&1 || true
	data=
}

# second_opinion NAME: Wireshark's dissector (tshark, in the trixie chroot)
# must find as many PostgreSQL messages in the capture as pgtrace decodes,
# and pgtrace must decode all of them cleanly; decoded says how many.
second_opinion() {
	local theirs
	cp "$work/capture" "$chroots/trixie/tmp/pgspec-capture"
	theirs=$(chroot "$chroots/trixie" tshark -r /tmp/pgspec-capture -d "tcp.port==$port,pgsql" -T fields -e pgsql.type 2>/dev/null |
		tr ',' '\n' | grep -c .)
	# Every connection recorded to its end: a FIN or RST in each TCP stream.
	local streams ended
	streams=$(chroot "$chroots/trixie" tshark -r /tmp/pgspec-capture -T fields -e tcp.stream 2>/dev/null | sort -u | grep -c .)
	ended=$(chroot "$chroots/trixie" tshark -r /tmp/pgspec-capture -Y 'tcp.flags.fin == 1 || tcp.flags.reset == 1' \
		-T fields -e tcp.stream 2>/dev/null | sort -u | grep -c .)
	rm -f "$chroots/trixie/tmp/pgspec-capture"
	if [ "$streams" != "$ended" ]; then
		echo "record.sh: $1: $ended of $streams connections recorded to their end (FIN or RST)" >&2
		exit 1
	fi
	"$work/pgtrace" decode --quiet --port "$port" "$work/capture" >"$work/decode.log" 2>&1 || true
	decoded=$(awk '/^(frontend|backend): /{n += $2} END {print n}' "$work/decode.log")
	if ! grep -q ', 0 gaps$' "$work/decode.log" || grep -q 'pgtrace:' "$work/decode.log" || [ "$decoded" != "$theirs" ]; then
		cat "$work/decode.log" >&2
		echo "record.sh: $1: pgtrace decoded $decoded messages, tshark found $theirs" >&2
		exit 1
	fi
}

# capture NAME FORMAT FUNCTION records what FUNCTION sends over the server's
# port into pgNN-NAME.FORMAT.gz (gzip: Wireshark and the tests read it as it
# is): FORMAT pcap with tcpdump, pcapng with Wireshark's dumpcap (which runs
# in the trixie chroot, so that the host gets no Wireshark).
capture() {
	local name=pg$major-$1.$2.gz
	rm -f "$chroots/trixie/tmp/pgspec-capture.pcapng"
	case $2 in
	pcap) tcpdump -i lo -s 0 -B 131072 -U -w "$work/capture" "tcp port $port" 2>"$work/recorder.log" & ;;
	pcapng) chroot "$chroots/trixie" dumpcap -i lo -s 0 -B 128 -f "tcp port $port" -w /tmp/pgspec-capture.pcapng 2>"$work/recorder.log" & ;;
	esac
	recorder_pid=$!
	until grep -qs 'listening\|Capturing' "$work/recorder.log"; do sleep 0.1; done
	sleep 1 # the recorder says so a moment before the first packet is recorded
	"$3"
	# The last FIN and ACK; on a loaded machine the recorder lags behind the
	# kernel, and what it has not read when it is stopped is lost without a
	# drop being counted: stop it once its file has stopped growing.
	local file=$work/capture size=-1
	[ "$2" = pcap ] || file=$chroots/trixie/tmp/pgspec-capture.pcapng
	sleep 1
	until [ "$(stat -c %s "$file")" = "$size" ]; do
		size=$(stat -c %s "$file")
		sleep 2
	done
	kill -INT "$recorder_pid"
	wait "$recorder_pid" || true
	recorder_pid=
	[ "$2" = pcap ] || mv "$chroots/trixie/tmp/pgspec-capture.pcapng" "$work/capture"
	# A packet the kernel dropped is a gap no decoder may guess over.
	if ! grep -q '^0 packets dropped by kernel\|dropped on interface .*: [0-9]*/0 ' "$work/recorder.log"; then
		cat "$work/recorder.log" >&2
		echo "record.sh: lost packets recording $name" >&2
		exit 1
	fi
	second_opinion "$name"
	gzip -9n <"$work/capture" >"$out/$name.tmp"
	mv "$out/$name.tmp" "$out/$name"
	echo "$name: $(stat -c %s "$work/capture") bytes, $(stat -c %s "$out/$name") gzipped, $decoded messages (tshark agrees)"
}

# new_client PROGRAM ARGS... runs a client of the sid chroot, whose libpq 18
# speaks protocol 3.2 when asked.
new_client() {
	chroot --userspec=postgres:postgres "$chroots/sid" env -i PATH=/usr/lib/postgresql/18/bin:/usr/bin:/bin \
		HOME=/var/lib/postgresql LANG=C PGCONNECT_TIMEOUT=10 PGPASSWORD=scram-secret "$@"
}

# A long query that psql interrupts after 2 s: psql's SIGINT handler sends a
# CancelRequest on a connection of its own.
interrupted=(timeout -s INT 2 psql -X -c "select pg_sleep(30)")

sessions() {
	as password_user clear-secret psql -X -c "select current_user" >/dev/null
	as md5_user md5-secret psql -X -c "select current_user" >/dev/null
	as scram_user scram-secret psql -X -c "select current_user" >/dev/null
	as scram_user wrong-secret psql -X -c "select 1" >/dev/null 2>&1 || true # rejected: ErrorResponse after SASL
	as scram_user scram-secret psql -X -f - >/dev/null 2>&1 <<-'EOF'
		CREATE TABLE items (id int PRIMARY KEY, name text, price numeric, raw bytea, at timestamptz);
		INSERT INTO items VALUES (1, 'apple', 1.25, '\x00ff', '2024-01-02 03:04:05+00'), (2, NULL, NULL, NULL, NULL);
		SELECT * FROM items ORDER BY id; SELECT 'two statements', 2;
		SELECT 1/0;
		DO $$ BEGIN RAISE NOTICE 'a notice'; END $$;
		LISTEN pgspec_channel;
		NOTIFY pgspec_channel, 'payload';
		SELECT pg_notify('pgspec_channel', 'second');
		COPY items FROM STDIN;
		3	pear	0.5	\\x0102	2024-05-06 07:08:09+00
		4	\N	\N	\N	\N
		\.
		COPY items TO STDOUT;
		COPY items TO STDOUT (FORMAT binary);
		\lo_import /etc/hostname
		\lo_export :LASTOID /tmp/pgspec-lo
		\lo_unlink :LASTOID
	EOF
	if [ "$major" -ge 16 ]; then # psql's \bind: the extended protocol from libpq
		echo 'SELECT $1::int + 1, $2::text \bind 41 text \g' | as scram_user scram-secret psql -X -f - >/dev/null
	fi
	printf '\\set id random(1, 4)\nSELECT id, name, price, at FROM items WHERE id = :id;\n' >"$root/tmp/pgspec-bench.sql"
	for mode in extended prepared; do
		as scram_user scram-secret pgbench -n -t 3 -M $mode -f /tmp/pgspec-bench.sql >/dev/null
	done
	as scram_user scram-secret "${interrupted[@]}" >/dev/null 2>&1 || true
	"$work/capturework" -addr "127.0.0.1:$port" -user scram_user -password scram-secret sessions
	if [ "$major" -ge 18 ]; then # protocol 3.2: 32-byte cancel keys
		new_client psql -X "host=127.0.0.1 port=$port user=scram_user dbname=postgres max_protocol_version=3.2" -c "select 1" >/dev/null
		new_client env PGHOST=127.0.0.1 PGPORT="$port" PGUSER=scram_user PGDATABASE=postgres \
			PGMINPROTOCOLVERSION=3.2 PGMAXPROTOCOLVERSION=3.2 "${interrupted[@]}" >/dev/null 2>&1 || true
	else # a 3.2 client meets an older server: NegotiateProtocolVersion
		new_client psql -X "host=127.0.0.1 port=$port user=scram_user dbname=postgres max_protocol_version=3.2" -c "select 1" >/dev/null
	fi
}

# The logical workload: every pgoutput message the major can send.
logical_workload() {
	local big=5 # rows of a "large" transaction; 16+ streams even small ones
	[ "$major" -ge 16 ] || big=600
	sql -o /dev/null -v big=$big <<-'EOF'
		INSERT INTO lr VALUES (1, 'one', 'ok', '\x01'), (2, 'two', NULL, NULL);
		UPDATE lr SET t = 'uno' WHERE id = 1;
		UPDATE lr SET id = 20 WHERE id = 2;
		DELETE FROM lr WHERE id = 20;
		INSERT INTO lr_full VALUES (1, 'a');
		UPDATE lr_full SET t = 'b';
		DELETE FROM lr_full;
		TRUNCATE lr_full;
		SELECT pg_replication_origin_session_setup('upstream');
		BEGIN;
		SELECT pg_replication_origin_xact_setup('0/12345678', '2024-01-02 03:04:05+00');
		INSERT INTO lr VALUES (3, 'from upstream');
		COMMIT;
		SELECT pg_replication_origin_session_reset();
		BEGIN;
		INSERT INTO lr SELECT g, repeat('s', 40) FROM generate_series(100, 99 + :big) g;
		COMMIT;
		BEGIN;
		INSERT INTO lr SELECT g, repeat('a', 40) FROM generate_series(1000, 999 + :big) g;
		ROLLBACK;
		BEGIN;
		INSERT INTO lr SELECT g, repeat('u', 40) FROM generate_series(2000, 1999 + :big) g;
		SAVEPOINT sp;
		INSERT INTO lr VALUES (2999, 'rolled back');
		ROLLBACK TO sp;
		COMMIT;
	EOF
	if [ "$major" -ge 14 ]; then
		sql -c "SELECT pg_logical_emit_message(true, 'pgspec', 'transactional')" \
			-c "SELECT pg_logical_emit_message(false, 'pgspec', 'non-transactional')" >/dev/null
	fi
	sql -o /dev/null -v big=$big <<-'EOF'
		BEGIN; INSERT INTO lr VALUES (4, 'prepared'); PREPARE TRANSACTION 'p_commit';
		COMMIT PREPARED 'p_commit';
		BEGIN; INSERT INTO lr VALUES (5, 'prepared'); PREPARE TRANSACTION 'p_rollback';
		ROLLBACK PREPARED 'p_rollback';
		BEGIN; INSERT INTO lr SELECT g, repeat('p', 40) FROM generate_series(3000, 2999 + :big) g;
		PREPARE TRANSACTION 'p_stream';
		COMMIT PREPARED 'p_stream';
	EOF
}

# logical_versions is the pgoutput protocol versions the major speaks.
logical_versions() {
	case $major in 13) echo 1 ;; 14) echo 1 2 ;; 15) echo 1 2 3 ;; *) echo 1 2 3 4 ;; esac
}

# recvlogical_options V: what the run of protocol version V asks for.
recvlogical_options() {
	local o="-o proto_version=$1 -o publication_names=pub"
	[ "$major" -lt 14 ] || o="$o -o messages=true"
	case $1 in
	2) o="$o -o streaming=on -o binary=true" ;;
	# 15 streams only large transactions, 16+ (debug_logical_replication_streaming)
	# every one: two-phase without streaming there, for Begin Prepare and Prepare.
	3) [ "$major" -ge 16 ] && o="$o -o two_phase=on" || o="$o -o streaming=on -o two_phase=on" ;;
	4) o="$o -o streaming=parallel -o two_phase=on" ;;
	esac
	echo "$o"
}

logical() {
	local v two_phase end
	two_phase=--two-phase
	[ "$major" -lt 18 ] || two_phase=--enable-two-phase
	for v in $(logical_versions); do
		if [ "$v" -ge 3 ]; then
			as repl_user repl-secret pg_recvlogical -d postgres -S "slot_v$v" -P pgoutput $two_phase --create-slot
		else
			as repl_user repl-secret pg_recvlogical -d postgres -S "slot_v$v" -P pgoutput --create-slot
		fi
	done
	logical_workload
	end=$(lsn)
	sql -c "INSERT INTO unpublished VALUES (1)" # WAL past the end position ends each stream
	for v in $(logical_versions); do
		# shellcheck disable=SC2046 # the options are words
		as repl_user repl-secret timeout 60 pg_recvlogical -d postgres -S "slot_v$v" --start --endpos="$end" -f /dev/null \
			$(recvlogical_options "$v")
	done
	# 17 and later: FAILOVER slots, ALTER_REPLICATION_SLOT, READ_REPLICATION_SLOT.
	[ "$major" -lt 17 ] || "$work/capturework" -addr "127.0.0.1:$port" -user repl_user -password repl-secret slots
}

physical() {
	sql -c "SELECT pg_switch_wal()" >/dev/null
	sql -c "INSERT INTO unpublished VALUES (2)"
	local end
	end=$(lsn)
	sql -c "INSERT INTO unpublished VALUES (3)"
	pg mkdir /tmp/pgspec-wal
	as repl_user repl-secret timeout 60 pg_receivewal -D /tmp/pgspec-wal --endpos="$end" --no-loop
	"$work/capturework" -addr "127.0.0.1:$port" -user repl_user -password repl-secret physical
	# A timeline switch: the server restarts as a standby of nothing and is
	# promoted onto timeline 2. pg_receivewal, resuming in the same directory
	# on timeline 1, streams up to the switch point, reads the end-of-timeline
	# result set (next_tli, next_tli_startpos), asks TIMELINE_HISTORY 2 and
	# follows onto timeline 2. The last kind recorded: the rest stay on 1.
	pg pg_ctl -D "$data" -m fast -w stop >/dev/null
	pg touch "$data/standby.signal"
	pg pg_ctl -D "$data" -l "$data/server.log" -w start >/dev/null
	pg pg_ctl -D "$data" -w promote >/dev/null
	sql -c "INSERT INTO unpublished VALUES (5)"
	end=$(lsn)
	sql -c "INSERT INTO unpublished VALUES (6)"
	as repl_user repl-secret timeout 60 pg_receivewal -D /tmp/pgspec-wal --endpos="$end" --no-loop
}

# backup takes a base backup in tar format with the WAL it needs and a
# manifest. No server-side compression (15+ could): the capture is stored
# gzipped, and a fresh cluster without its templates gzips from ~9 MB to
# ~1 MB, better than server-gzip's output does.
backup() {
	# --max-rate: loopback outruns tcpdump's buffer otherwise.
	as repl_user repl-secret pg_basebackup -D /tmp/pgspec-backup -Ft -X fetch -P -c fast --max-rate=16M 2>/dev/null
	# 17 and later: an incremental backup on top of it (UPLOAD_MANIFEST, the
	# manifest in CopyData, BASE_BACKUP with INCREMENTAL).
	if [ "$major" -ge 17 ]; then
		sql -c "INSERT INTO unpublished VALUES (4)" -c "CHECKPOINT" >/dev/null
		as repl_user repl-secret pg_basebackup -D /tmp/pgspec-incremental -Ft -X fetch -c fast --max-rate=16M \
			--incremental=/tmp/pgspec-backup/backup_manifest 2>/dev/null
	fi
}

# in_chroot ROOT SUITE PACKAGE... makes or updates a chroot, quietly unless it fails.
in_chroot() {
	used_roots+=("$1")
	"$here/chroot.sh" "$@" >"$work/chroot.log" 2>&1 || {
		cat "$work/chroot.log" >&2
		exit 1
	}
}

# Two chroots serve every major: trixie's dumpcap and tshark record and
# check, sid's libpq 18 asks every server for protocol 3.2.
in_chroot "$chroots/trixie" trixie wireshark-common tshark
in_chroot "$chroots/sid" sid postgresql-client-18

for major in "${majors[@]}"; do
	suite=$(suite_of "$major")
	# 19 gets a chroot of its own: experimental's libpq would replace sid's.
	root=$chroots/${suite/+/-}
	package=postgresql-$major
	[ "$suite" = "${suite%+experimental}" ] || package=$package/experimental
	port=$((5400 + major))
	in_chroot "$root" "$suite" "$package"
	start_server
	sql <<-'EOF'
		CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
		CREATE TABLE lr (id int PRIMARY KEY, t text, m mood, b bytea);
		CREATE TABLE lr_full (id int, t text);
		ALTER TABLE lr_full REPLICA IDENTITY FULL;
		CREATE TABLE unpublished (id int);
		CREATE PUBLICATION pub FOR TABLE lr, lr_full;
		SELECT pg_replication_origin_create('upstream') \g /dev/null
	EOF
	[[ $kinds != *" sessions "* ]] || capture sessions pcapng sessions
	[[ $kinds != *" logical "* ]] || capture logical pcap logical
	[[ $kinds != *" backup "* ]] || capture backup pcap backup
	# Last: it ends with a timeline switch.
	[[ $kinds != *" physical "* ]] || capture physical pcapng physical
	stop_server
done

#!/bin/sh
# chroot.sh ROOT SUITE PACKAGE... — make (or reuse) a minimal Debian SUITE
# chroot at ROOT and install PACKAGE... into it, so a server of another
# PostgreSQL major runs without touching the host's packages. SUITE may be
# "sid+experimental": sid with experimental's sources added (at apt's default
# priority 1, so ask for a package from it as PACKAGE/experimental).
# Needs root, debootstrap, and Debian's mirror (MIRROR overrides it).
set -eu
root=$1 suite=$2; shift 2
mirror=${MIRROR:-http://deb.debian.org/debian}
base=${suite%+experimental}

# debootstrap removes $root/debootstrap when it has finished.
if [ ! -x "$root/usr/bin/apt-get" ] || [ -d "$root/debootstrap" ]; then
	mkdir -p "$root"
	debootstrap --variant=minbase "$base" "$root" "$mirror"
fi
if [ "$base" != "$suite" ] && [ ! -f "$root/etc/apt/sources.list.d/experimental.list" ]; then
	echo "deb $mirror experimental main" > "$root/etc/apt/sources.list.d/experimental.list"
fi
# The mirror may serve a suite whose Release has outlived its Valid-Until
# (sid and experimental, between two pushes): accept it, the signature still counts.
echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99pgspec-valid-until"
# The server inside needs /proc and /dev/shm; mount them once.
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
mkdir -p "$root/dev/shm"
mountpoint -q "$root/dev/shm" || mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
# Never start services inside the chroot while installing.
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
chroot "$root" apt-get update -q
if [ $# -gt 0 ]; then
	chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
fi

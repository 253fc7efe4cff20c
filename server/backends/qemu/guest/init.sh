#!/bin/busybox sh
# The initramfs's /init (busybox): load the virtio modules the cloud kernel builds as
# modules, find the root disk by its serial, mount it read-only under a tmpfs overlay (the
# image never changes; the guest may write anywhere, into memory) and hand over to the
# guest agent. The module list is filled in by the image builder.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for module in @MODULES@; do insmod "/modules/$module.ko"; done
if grep -q 'airlock.net=1' /proc/cmdline; then
  for module in @NETWORK_MODULES@; do insmod "/modules/$module.ko"; done
fi
root=
for disk in /sys/block/vd*; do
  [ "$(cat "$disk/serial" 2>/dev/null)" = airlock-root ] && root="/dev/${disk##*/}"
done
# Firecracker sets no serials: its drives come in a fixed order instead.
[ -z "$root" ] && grep -q 'airlock.disks=order' /proc/cmdline && root=/dev/vda
[ -n "$root" ] || { echo 'AIRLOCK fatal no root disk'; poweroff -f; }
mkdir -p /lower /upper /newroot
mount -t ext4 -o ro,noload "$root" /lower
mount -t tmpfs -o mode=0755 upper /upper
mkdir -p /upper/data /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work overlay /newroot
mount --move /dev /newroot/dev
umount /proc /sys
exec switch_root /newroot /usr/lib/airlock/agent

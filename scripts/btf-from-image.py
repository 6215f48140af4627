#!/usr/bin/env python3
"""Cuts the kernel's BTF (the .BTF section of vmlinux) out of a kernel image.

    scripts/btf-from-image.py IMAGE OUT

IMAGE: an x86 bzImage, an arm64 Image (raw or gzip'd) or an ELF vmlinux. OUT gets the
raw BTF blob, which 'bpftool btf dump file OUT' reads. Used by scripts/gen-vmlinux.

A bzImage is unpacked first: its setup header holds the compressed payload's place
(payload_offset at 0x248, relative to the protected-mode code at (setup_sects + 1) * 512,
payload_length at 0x24c); the payload is the ELF vmlinux, compressed with gzip, xz, lzma,
bzip2 (Python's own modules), zstd or lz4 (the zstd and lz4 tools). In an ELF file the
.BTF section is taken. Otherwise (a raw arm64 Image, where the sections are laid out as
loaded and not named) every BTF header magic is a candidate: 9f eb 01 00, then the rest
of struct btf_header (hdr_len, type_off, type_len, str_off, str_len; the blob is hdr_len +
str_off + str_len bytes long). A candidate must be self-consistent, have a string section
that names handle_mm_fault and task_struct, and be accepted by 'bpftool btf dump file'
(BPFTOOL, default bpftool); the first such one is written.
"""

import bz2
import lzma
import os
import struct
import subprocess
import sys
import tempfile
import zlib

BTF_MAGIC = b"\x9f\xeb\x01\x00"
NEEDED_NAMES = (b"handle_mm_fault", b"task_struct")


def die(msg):
    print(f"btf-from-image: {msg}", file=sys.stderr)
    sys.exit(1)


def run_tool(argv, data):
    """Decompresses data with an external tool; trailing bytes are tolerated."""
    try:
        p = subprocess.run(argv, input=data, capture_output=True)
    except FileNotFoundError:
        die(f"{argv[0]} (Debian package {argv[0]}) is needed to unpack this kernel")
    # The kernel appends the uncompressed size (4 bytes) after the stream, which the
    # tools may report as trailing garbage after having written everything.
    if p.returncode != 0 and not p.stdout:
        die(f"{' '.join(argv)}: {p.stderr.decode(errors='replace').strip()}")
    return p.stdout


def decompress(data):
    """Decompresses data by its magic; None if it is not compressed in a known way."""
    if data[:2] == b"\x1f\x8b":
        # stops at the end of the first member: a bzImage payload has trailing bytes
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data)
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data)
    if data[:3] == b"\x5d\x00\x00":
        return lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(data)
    if data[:3] == b"BZh":
        return bz2.BZ2Decompressor().decompress(data)
    if data[:4] == b"\x28\xb5\x2f\xfd":
        return run_tool(["zstd", "-dcq"], data)
    if data[:4] in (b"\x02\x21\x4c\x18", b"\x04\x22\x4d\x18"):
        return run_tool(["lz4", "-dcq"], data)
    return None


def bzimage_payload(data):
    """The compressed payload of an x86 bzImage, or None if data is not one."""
    if len(data) < 0x250 or data[0x202:0x206] != b"HdrS":
        return None
    setup_sects = data[0x1F1] or 4
    offset, length = struct.unpack_from("<II", data, 0x248)
    start = (setup_sects + 1) * 512 + offset
    if not length or start + length > len(data):
        die("bzImage: payload_offset/payload_length out of the file")
    return data[start:start + length]


def elf_section(data, name):
    """The named section of a 64-bit little-endian ELF file, or None."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def sh(i):
        # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size
        return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)

    strtab = sh(shstrndx)
    names = data[strtab[4]:strtab[4] + strtab[5]]
    for i in range(shnum):
        s = sh(i)
        end = names.index(b"\0", s[0])
        if names[s[0]:end] == name.encode():
            return data[s[4]:s[4] + s[5]]
    return None


def candidates(data):
    """Self-consistent BTF blobs that name NEEDED_NAMES, in file order."""
    pos = data.find(BTF_MAGIC)
    while pos >= 0:
        blob = check_header(data, pos)
        if blob is not None:
            yield pos, blob
        pos = data.find(BTF_MAGIC, pos + 1)


def check_header(data, pos):
    if pos + 24 > len(data):
        return None
    hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<IIIII", data, pos + 4)
    if hdr_len < 24 or hdr_len > 256 or type_off + type_len > str_off or not str_len:
        return None
    size = hdr_len + str_off + str_len
    if pos + size > len(data):
        return None
    blob = data[pos:pos + size]
    strs = blob[hdr_len + str_off:]
    if strs[:1] != b"\0" or strs[-1:] != b"\0":
        return None
    if not all(b"\0" + n + b"\0" in strs for n in NEEDED_NAMES):
        return None
    return blob


def bpftool_accepts(blob):
    bpftool = os.environ.get("BPFTOOL", "bpftool")
    with tempfile.NamedTemporaryFile(suffix=".btf") as f:
        f.write(blob)
        f.flush()
        try:
            p = subprocess.run([bpftool, "btf", "dump", "file", f.name],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except FileNotFoundError:
            die(f"{bpftool} not found (Debian package bpftool)")
    return p.returncode == 0


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    image, out = sys.argv[1:]
    with open(image, "rb") as f:
        data = f.read()

    payload = bzimage_payload(data)
    if payload is not None:
        data = decompress(payload)
        if data is None:
            die(f"{image}: bzImage payload compressed in an unknown way "
                f"(magic {payload[:4].hex()})")
        what = "bzImage payload"
    else:
        unpacked = decompress(data)
        what = "compressed image" if unpacked is not None else "image"
        data = unpacked if unpacked is not None else data

    found = []
    sec = elf_section(data, ".BTF")
    if sec is not None and check_header(sec, 0) is not None:
        found.append((f"{what}, ELF section .BTF", sec))
    found += [(f"{what}, offset {pos:#x}", blob) for pos, blob in candidates(data)]
    for where, blob in found:
        if bpftool_accepts(blob):
            with open(out, "wb") as f:
                f.write(blob)
            print(f"btf-from-image: {image}: {len(blob)} bytes of BTF ({where})")
            return
    die(f"{image}: no BTF that bpftool accepts and that names "
        f"{' and '.join(n.decode() for n in NEEDED_NAMES)} ({len(found)} candidates)")


if __name__ == "__main__":
    main()

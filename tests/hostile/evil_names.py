#!/usr/bin/env python3
"""Hostile names for tests/integration/test_names.sh: text holding ESC sequences (clear
screen, OSC 52), BEL, the 8-bit CSI (C1), a newline, a tab, a comma, a quote, a backslash
and an invalid byte, put where a model, a trace or a plan carries a name.

usage: evil_names.py model IN OUT OLD   every occurrence of the string OLD (same length:
                                        the flatbuffer's offsets stay right)
       evil_names.py trace IN OUT       every MAPPING path and NOTE text (the records'
                                        len and crc fixed; PACKED records unpacked first)
       evil_names.py csv OUT            a CSV plan whose tensor names are hostile
"""
import sys

from unpack_trace import rewrite

EVIL = b'e\x1b[2J\x07\x1b]52;c;SGk=\x07,"\\\n\t\xc2\x9b\xffz'


def evil(n):
    """n bytes of EVIL, repeated as needed"""
    return (EVIL * (n // len(EVIL) + 1))[:n]


def model(src, dst, old):
    data = open(src, 'rb').read()
    old = old.encode()
    if old not in data:
        sys.exit('%s: no %r in it' % (src, old))
    open(dst, 'wb').write(data.replace(old, evil(len(old))))


def trace(src, dst):
    def evil_path_or_note(typ, pay):
        if typ == 3 and len(pay) > 56:		# MAPPING: 56 bytes of fields, the path
            return pay[:56] + EVIL + pay[56:]
        if typ == 10 and len(pay) > 16:		# NOTE: 16 bytes of fields, the text
            return pay[:16] + EVIL + pay[16:]
        return pay

    out, changed = rewrite(open(src, 'rb').read(), evil_path_or_note)
    open(dst, 'wb').write(out)
    print(changed)


def csv(dst):
    name = EVIL.replace(b'"', b'""')
    with open(dst, 'wb') as f:
        f.write(b'tensor,name,offset,size,first_node,last_node\n')
        f.write(b'0,"' + name + b'a",0,4096,0,1\n')
        f.write(b'1,"' + name + b'b",4096,8192,1,2\n')


def main():
    kind = sys.argv[1]
    if kind == 'model':
        model(sys.argv[2], sys.argv[3], sys.argv[4])
    elif kind == 'trace':
        trace(sys.argv[2], sys.argv[3])
    elif kind == 'csv':
        csv(sys.argv[2])
    else:
        sys.exit('unknown kind ' + kind)


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""Independent check of `xla-rocm-tracer inspect`: decodes an .xplane.pb with a minimal
protobuf wire-format reader (no generated classes, no protobuf package) and prints, per plane,
each line's name and event count, and the event names on device lines."""
import collections
import sys


def varint(buf, pos):
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def fields(buf):
    """Yields (field_number, wire_type, value) of one message."""
    pos = 0
    while pos < len(buf):
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = varint(buf, pos)
            value, pos = buf[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield number, wire, value


def main(path):
    data = open(path, "rb").read()
    for number, _, plane in fields(data):
        if number != 1:
            continue
        name, lines, event_names = "", [], {}
        for pnum, _, pval in fields(plane):
            if pnum == 2:
                name = pval.decode()
            elif pnum == 3:
                lines.append(pval)
            elif pnum == 4:  # map entry: key=1, value=2 (XEventMetadata)
                key = meta_name = None
                for enum_, _, ev in fields(pval):
                    if enum_ == 1:
                        key = ev
                    elif enum_ == 2:
                        for mnum, _, mv in fields(ev):
                            if mnum == 2:
                                meta_name = mv.decode()
                event_names[key] = meta_name
        print(f"plane {name}")
        for line in lines:
            lname, count, names = "", 0, collections.Counter()
            for lnum, _, lval in fields(line):
                if lnum == 2:
                    lname = lval.decode()
                elif lnum == 4:
                    count += 1
                    for enum_, _, ev in fields(lval):
                        if enum_ == 1:
                            names[event_names.get(ev)] += 1
            print(f"  line {lname!r}: {count} events")
            if name.startswith("/device:"):
                for ename, n in sorted(names.items()):
                    print(f"    {n:4d} {ename}")


if __name__ == "__main__":
    main(sys.argv[1])

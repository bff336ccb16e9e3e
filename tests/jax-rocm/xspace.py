"""A dependency-free reader (and, for tests, writer) of XSpace protobufs (.xplane.pb): the
fields of tsl/profiler/protobuf/xplane.proto that the jax-rocm checks read. Protobuf's wire
format is decoded by hand so that the checks need no `protobuf` package in the JAX venv.
"""
import struct


def _varint(data, at):
    value = shift = 0
    while True:
        if at >= len(data):
            raise ValueError("truncated varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _fields(data):
    """Yields (field number, wire type, value) of a message; length-delimited values as bytes."""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 1:
            value, at = data[at:at + 8], at + 8
        elif wire == 2:
            length, at = _varint(data, at)
            value, at = data[at:at + length], at + length
            if len(value) != length:
                raise ValueError("truncated field")
        elif wire == 5:
            value, at = data[at:at + 4], at + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, wire, value


def _signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


class Stat:
    def __init__(self, data):
        self.metadata_id, self.value = 0, None
        for n, w, v in _fields(data):
            if n == 1:
                self.metadata_id = v
            elif n == 2:
                self.value = struct.unpack("<d", v)[0]
            elif n == 3:
                self.value = v
            elif n == 4:
                self.value = _signed(v)
            elif n in (5, 6):
                self.value = v.decode("utf-8", "replace") if n == 5 else v
            elif n == 7:
                self.value = ("ref", v)


class Event:
    def __init__(self, data):
        self.metadata_id = self.offset_ps = self.duration_ps = 0
        self.stats = []
        for n, w, v in _fields(data):
            if n == 1:
                self.metadata_id = v
            elif n == 2:
                self.offset_ps = _signed(v)
            elif n == 3:
                self.duration_ps = _signed(v)
            elif n == 4:
                self.stats.append(Stat(v))


class Line:
    def __init__(self, data):
        self.id = self.display_id = self.timestamp_ns = 0
        self.name = self.display_name = ""
        self.events = []
        for n, w, v in _fields(data):
            if n == 1:
                self.id = _signed(v)
            elif n == 10:
                self.display_id = _signed(v)
            elif n == 2:
                self.name = v.decode("utf-8", "replace")
            elif n == 11:
                self.display_name = v.decode("utf-8", "replace")
            elif n == 3:
                self.timestamp_ns = _signed(v)
            elif n == 4:
                self.events.append(Event(v))


def _map_entry(data):
    key, value = 0, b""
    for n, w, v in _fields(data):
        if n == 1:
            key = v
        elif n == 2:
            value = v
    return key, value


def _metadata_name(data):
    ident, name, stats = 0, "", []
    for n, w, v in _fields(data):
        if n == 1:
            ident = v
        elif n == 2:
            name = v.decode("utf-8", "replace")
        elif n == 5:
            stats.append(Stat(v))
    return ident, name, stats


class Plane:
    def __init__(self, data):
        self.id, self.name = 0, ""
        self.lines, self.event_names, self.stat_names, self.stats = [], {}, {}, []
        self.event_metadata_stats = {}
        for n, w, v in _fields(data):
            if n == 1:
                self.id = v
            elif n == 2:
                self.name = v.decode("utf-8", "replace")
            elif n == 3:
                self.lines.append(Line(v))
            elif n == 4:
                key, value = _map_entry(v)
                _, name, stats = _metadata_name(value)
                self.event_names[key] = name
                self.event_metadata_stats[key] = stats
            elif n == 5:
                key, value = _map_entry(v)
                self.stat_names[key] = _metadata_name(value)[1]
            elif n == 6:
                self.stats.append(Stat(v))

    def stat_dict(self, stats):
        """{stat name: value} of `stats` (references resolved to the referenced name)."""
        out = {}
        for s in stats:
            value = s.value
            if isinstance(value, tuple) and value[0] == "ref":
                value = self.stat_names.get(value[1], "")
            out[self.stat_names.get(s.metadata_id, str(s.metadata_id))] = value
        return out

    def event_stats(self, event):
        """An event's stats, with those of its metadata under them (XLA puts some there)."""
        merged = self.stat_dict(self.event_metadata_stats.get(event.metadata_id, []))
        merged.update(self.stat_dict(event.stats))
        return merged


def read(path):
    with open(path, "rb") as f:
        return parse(f.read())


def parse(data):
    """The planes of a serialized XSpace."""
    return [Plane(v) for n, w, v in _fields(data) if n == 1]


# ---- writer, for synthetic XSpaces in tests --------------------------------------------------

def _enc_varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = v & 0x7F
        v >>= 7
        if v:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number, value):
    if isinstance(value, int):
        return _enc_varint(number << 3) + _enc_varint(value)
    if isinstance(value, str):
        value = value.encode()
    return _enc_varint(number << 3 | 2) + _enc_varint(len(value)) + value


def write(path, planes):
    """Writes planes given as {"name": str, "lines": [{"name": str, "events": [(event name,
    offset_ps, duration_ps, {stat name: int or str})]}]}."""
    space = b""
    for plane_id, plane in enumerate(planes, 1):
        names, stat_ids, body = {}, {}, b""

        def stat_id(name):
            return stat_ids.setdefault(name, len(stat_ids) + 1)

        for line_id, line in enumerate(plane["lines"], 1):
            events = b""
            for name, offset, duration, stats in line["events"]:
                meta = names.setdefault(name, len(names) + 1)
                encoded = b""
                for key, value in stats.items():
                    ident = stat_id(key)
                    if isinstance(value, int):
                        encoded += _field(4, _field(1, ident) + _field(3, value))
                    else:
                        encoded += _field(4, _field(1, ident) + _field(5, value))
                events += _field(4, _field(1, meta) + _field(2, offset) + _field(3, duration) + encoded)
            body += _field(3, _field(1, line_id) + _field(2, line["name"]) + events)
        for name, ident in names.items():
            body += _field(4, _field(1, ident) + _field(2, _field(1, ident) + _field(2, name)))
        for name, ident in stat_ids.items():
            body += _field(5, _field(1, ident) + _field(2, _field(1, ident) + _field(2, name)))
        space += _field(1, _field(1, plane_id) + _field(2, plane["name"]) + body)
    with open(path, "wb") as f:
        f.write(space)

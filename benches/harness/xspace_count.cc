#include "xspace_count.h"

namespace {

struct Reader {
  const unsigned char* p;
  const unsigned char* end;

  bool varint(uint64_t* out) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
      const unsigned char byte = *p++;
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *out = value;
        return true;
      }
    }
    return false;
  }
};

// XSpace.planes = 1, XPlane.lines = 3, XLine.events = 4.
constexpr uint64_t kPath[] = {1, 3, 4};

int64_t count_at(const unsigned char* begin, const unsigned char* end, int depth) {
  Reader r{begin, end};
  int64_t count = 0;
  while (r.p < r.end) {
    uint64_t tag = 0, value = 0;
    if (!r.varint(&tag)) return -1;
    switch (tag & 7) {
      case 0:
        if (!r.varint(&value)) return -1;
        break;
      case 1:
        if (r.end - r.p < 8) return -1;
        r.p += 8;
        break;
      case 5:
        if (r.end - r.p < 4) return -1;
        r.p += 4;
        break;
      case 2: {
        if (!r.varint(&value) || value > static_cast<uint64_t>(r.end - r.p)) return -1;
        if ((tag >> 3) == kPath[depth]) {
          if (depth == 2) {
            ++count;
          } else {
            const int64_t inner = count_at(r.p, r.p + value, depth + 1);
            if (inner < 0) return -1;
            count += inner;
          }
        }
        r.p += value;
        break;
      }
      default:
        return -1;
    }
  }
  return count;
}

}  // namespace

int64_t count_xevents(const std::string& bytes) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  return count_at(data, data + bytes.size(), 0);
}

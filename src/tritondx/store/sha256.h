// SHA-256 (FIPS 180-4, computed by OpenSSL) of a byte string, as 64 lowercase hex digits. The store keys runs by
// the hash of the task file's text and de-duplicates candidates by the hash of their source.
#pragma once

#include <string>
#include <string_view>

namespace tdx {

std::string sha256_hex(std::string_view bytes);

}  // namespace tdx

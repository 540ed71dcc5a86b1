// The store's schema, version kStoreSchemaVersion (documented in docs/store-schema.md).
#pragma once

namespace tdx::store_detail {

// Statements that create every table, index and trigger of a new store.
extern const char* const kSchemaSql;

}  // namespace tdx::store_detail

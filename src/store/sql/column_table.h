// A column table for reading records: each column's name with the function
// that reads it into the record, as rows.h does for loops and runs. The
// SELECT list and every read position come from the one table, so a column
// is named once and cannot be read at the wrong position.
//
// read_field<&Record::field> reads the plain kinds of field (text, integers,
// optional integers, flags); any other column gives its own function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/result.h"
#include "store/sql/connection.h"

namespace orrery::sql {

template <typename Record>
struct ReadColumn {
  const char* name;  // a column, or an expression of the query's tables
  Status (*read)(const Statement& row, int column, Record& record);
};

template <typename Record>
using ColumnTable = std::vector<ReadColumn<Record>>;

// "a, b, c" in table order; `qualifier` ("t.") before each name.
template <typename Record>
std::string select_list(const ColumnTable<Record>& columns, std::string_view qualifier = "") {
  std::string list;
  for (const ReadColumn<Record>& column : columns) {
    if (!list.empty()) list += ", ";
    list.append(qualifier).append(column.name);
  }
  return list;
}

// The record of a row selected with select_list(columns).
template <typename Record>
Result<Record> read_columns(const ColumnTable<Record>& columns, const Statement& row) {
  Record record;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (auto read = columns[i].read(row, int(i), record); !read) return read.error();
  }
  return record;
}

template <typename Member>
struct MemberOf;
template <typename Record, typename Field>
struct MemberOf<Field Record::*> {
  using RecordType = Record;
  using FieldType = Field;
};

template <auto Field>
Status read_field(const Statement& row, int column,
                  typename MemberOf<decltype(Field)>::RecordType& record) {
  using F = typename MemberOf<decltype(Field)>::FieldType;
  if constexpr (std::is_same_v<F, std::string>) {
    record.*Field = row.text(column);
  } else if constexpr (std::is_same_v<F, std::int64_t>) {
    record.*Field = row.int64(column);
  } else if constexpr (std::is_same_v<F, int>) {
    record.*Field = int(row.int64(column));
  } else if constexpr (std::is_same_v<F, bool>) {
    record.*Field = row.int64(column) != 0;
  } else if constexpr (std::is_same_v<F, std::optional<std::int64_t>>) {
    record.*Field = row.optional_int64(column);
  } else if constexpr (std::is_same_v<F, std::optional<int>>) {
    if (row.is_null(column)) {
      record.*Field = std::nullopt;
    } else {
      record.*Field = int(row.int64(column));
    }
  } else {
    static_assert(!std::is_same_v<F, F>, "read this field with a function of its own");
  }
  return Ok{};
}

}  // namespace orrery::sql

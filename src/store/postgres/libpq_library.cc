// Forwarding of libpq's functions to the library loaded on first use
// (store/postgres/libpq_library.h).
#include "store/postgres/libpq_library.h"

#include <dlfcn.h>
#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/text.h"

namespace orrery::postgres {
namespace {

// Every libpq function libpqxx 6.4 and orrery call (`nm -u libpqxx.a` and
// the callers of PQconninfoParse): a new one fails to link until it is listed
// here and forwarded below.
// clang-format off
#define ORRERY_LIBPQ_FUNCTIONS(X) \
  X(PQbackendPID) X(PQcancel) X(PQclear) X(PQclientEncoding) X(PQcmdStatus) \
  X(PQcmdTuples) X(PQconnectPoll) X(PQconnectStart) X(PQconnectdb) \
  X(PQconninfoFree) X(PQconninfoParse) X(PQconsumeInput) X(PQdb) X(PQencryptPassword) \
  X(PQendcopy) X(PQerrorMessage) X(PQescapeByteaConn) X(PQescapeIdentifier) \
  X(PQescapeStringConn) X(PQexec) X(PQexecParams) X(PQexecPrepared) X(PQfinish) \
  X(PQfname) X(PQfnumber) X(PQfreeCancel) X(PQfreemem) X(PQftable) X(PQftablecol) \
  X(PQftype) X(PQgetCancel) X(PQgetCopyData) X(PQgetResult) X(PQgetisnull) \
  X(PQgetlength) X(PQgetvalue) X(PQhost) X(PQisBusy) X(PQisthreadsafe) \
  X(PQnfields) X(PQnotifies) X(PQntuples) X(PQoidValue) X(PQport) X(PQprepare) \
  X(PQprotocolVersion) X(PQputCopyData) X(PQputCopyEnd) X(PQreset) \
  X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus) X(PQsendQuery) \
  X(PQserverVersion) X(PQsetClientEncoding) X(PQsetErrorVerbosity) \
  X(PQsetNoticeProcessor) X(PQsocket) X(PQstatus) X(PQtrace) X(PQunescapeBytea) \
  X(PQuntrace) X(PQuser) X(lo_close) X(lo_creat) X(lo_export) X(lo_import) \
  X(lo_lseek) X(lo_open) X(lo_read) X(lo_tell) X(lo_unlink) X(lo_write) \
  X(pg_encoding_to_char)
// clang-format on

struct Functions {
#define ORRERY_LIBPQ_POINTER(name) decltype(&::name) name = nullptr;
  ORRERY_LIBPQ_FUNCTIONS(ORRERY_LIBPQ_POINTER)
#undef ORRERY_LIBPQ_POINTER
};

struct Library {
  Functions functions;
  std::string error;  // empty once loaded
};

std::string library_name() {
  const char* named = std::getenv("ORRERY_LIBPQ");
  return named != nullptr && *named != '\0' ? named : "libpq.so.5";
}

// The loader's reason without the name it starts with (the message names it).
std::string loader_reason(const std::string& name) {
  const char* reason = dlerror();
  std::string text = reason != nullptr ? reason : "no reason given";
  if (text.rfind(name + ": ", 0) == 0) text.erase(0, name.size() + 2);
  return text;
}

Library load() {
  const std::string name = library_name();
  const std::string shown = visible(name);
  Library library;
  const std::string advice =
      "; a PostgreSQL database needs it: install it (Debian: apt-get install libpq5) or set "
      "ORRERY_LIBPQ to its path";
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    library.error = "the PostgreSQL client library " + shown + " could not be loaded (" +
                    loader_reason(name) + ")" + advice;
    return library;
  }
  Functions& f = library.functions;
  std::string missing;
#define ORRERY_LIBPQ_RESOLVE(name)                                   \
  f.name = reinterpret_cast<decltype(f.name)>(dlsym(handle, #name)); \
  if (f.name == nullptr && missing.empty()) missing = #name;
  ORRERY_LIBPQ_FUNCTIONS(ORRERY_LIBPQ_RESOLVE)
#undef ORRERY_LIBPQ_RESOLVE
  if (!missing.empty()) {
    dlclose(handle);
    library = Library{};
    library.error = "the PostgreSQL client library " + shown + " has no function " + missing +
                    " (it is not the libpq orrery was built for)" + advice;
  }
  return library;
}

const Library& library() {
  static const Library loaded = load();
  return loaded;
}

const Functions& functions() {
  const Library& loaded = library();
  if (!loaded.error.empty()) {
    std::fprintf(stderr, "orrery: %s\n", loaded.error.c_str());
    std::abort();
  }
  return loaded.functions;
}

}  // namespace

Status load_libpq() {
  if (const std::string& error = library().error; !error.empty()) return internal_error(error);
  return Ok{};
}

bool libpq_available() { return library().error.empty(); }

}  // namespace orrery::postgres

using orrery::postgres::functions;

// Each forwards to the loaded library; the compiler checks each signature
// against libpq-fe.h.
#define ORRERY_FORWARD(result, name, parameters, arguments) \
  extern "C" result name parameters { return functions().name arguments; }

ORRERY_FORWARD(int, PQbackendPID, (const PGconn* conn), (conn))
ORRERY_FORWARD(int, PQcancel, (PGcancel * cancel, char* errbuf, int errbufsize),
               (cancel, errbuf, errbufsize))
ORRERY_FORWARD(void, PQclear, (PGresult * res), (res))
ORRERY_FORWARD(int, PQclientEncoding, (const PGconn* conn), (conn))
ORRERY_FORWARD(char*, PQcmdStatus, (PGresult * res), (res))
ORRERY_FORWARD(char*, PQcmdTuples, (PGresult * res), (res))
ORRERY_FORWARD(PostgresPollingStatusType, PQconnectPoll, (PGconn * conn), (conn))
ORRERY_FORWARD(PGconn*, PQconnectStart, (const char* conninfo), (conninfo))
ORRERY_FORWARD(PGconn*, PQconnectdb, (const char* conninfo), (conninfo))
ORRERY_FORWARD(void, PQconninfoFree, (PQconninfoOption * connOptions), (connOptions))
ORRERY_FORWARD(PQconninfoOption*, PQconninfoParse, (const char* conninfo, char** errmsg),
               (conninfo, errmsg))
ORRERY_FORWARD(int, PQconsumeInput, (PGconn * conn), (conn))
ORRERY_FORWARD(char*, PQdb, (const PGconn* conn), (conn))
ORRERY_FORWARD(char*, PQencryptPassword, (const char* passwd, const char* user), (passwd, user))
ORRERY_FORWARD(int, PQendcopy, (PGconn * conn), (conn))
ORRERY_FORWARD(char*, PQerrorMessage, (const PGconn* conn), (conn))
ORRERY_FORWARD(unsigned char*, PQescapeByteaConn,
               (PGconn * conn, const unsigned char* from, size_t from_length, size_t* to_length),
               (conn, from, from_length, to_length))
ORRERY_FORWARD(char*, PQescapeIdentifier, (PGconn * conn, const char* str, size_t len),
               (conn, str, len))
ORRERY_FORWARD(size_t, PQescapeStringConn,
               (PGconn * conn, char* to, const char* from, size_t length, int* error),
               (conn, to, from, length, error))
ORRERY_FORWARD(PGresult*, PQexec, (PGconn * conn, const char* query), (conn, query))
ORRERY_FORWARD(PGresult*, PQexecParams,
               (PGconn * conn, const char* command, int nParams, const Oid* paramTypes,
                const char* const* paramValues, const int* paramLengths, const int* paramFormats,
                int resultFormat),
               (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,
                resultFormat))
ORRERY_FORWARD(PGresult*, PQexecPrepared,
               (PGconn * conn, const char* stmtName, int nParams, const char* const* paramValues,
                const int* paramLengths, const int* paramFormats, int resultFormat),
               (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat))
ORRERY_FORWARD(void, PQfinish, (PGconn * conn), (conn))
ORRERY_FORWARD(char*, PQfname, (const PGresult* res, int field_num), (res, field_num))
ORRERY_FORWARD(int, PQfnumber, (const PGresult* res, const char* field_name), (res, field_name))
ORRERY_FORWARD(void, PQfreeCancel, (PGcancel * cancel), (cancel))
ORRERY_FORWARD(void, PQfreemem, (void* ptr), (ptr))
ORRERY_FORWARD(Oid, PQftable, (const PGresult* res, int field_num), (res, field_num))
ORRERY_FORWARD(int, PQftablecol, (const PGresult* res, int field_num), (res, field_num))
ORRERY_FORWARD(Oid, PQftype, (const PGresult* res, int field_num), (res, field_num))
ORRERY_FORWARD(PGcancel*, PQgetCancel, (PGconn * conn), (conn))
ORRERY_FORWARD(int, PQgetCopyData, (PGconn * conn, char** buffer, int async), (conn, buffer, async))
ORRERY_FORWARD(PGresult*, PQgetResult, (PGconn * conn), (conn))
ORRERY_FORWARD(int, PQgetisnull, (const PGresult* res, int tup_num, int field_num),
               (res, tup_num, field_num))
ORRERY_FORWARD(int, PQgetlength, (const PGresult* res, int tup_num, int field_num),
               (res, tup_num, field_num))
ORRERY_FORWARD(char*, PQgetvalue, (const PGresult* res, int tup_num, int field_num),
               (res, tup_num, field_num))
ORRERY_FORWARD(char*, PQhost, (const PGconn* conn), (conn))
ORRERY_FORWARD(int, PQisBusy, (PGconn * conn), (conn))
ORRERY_FORWARD(int, PQisthreadsafe, (), ())
ORRERY_FORWARD(int, PQnfields, (const PGresult* res), (res))
ORRERY_FORWARD(PGnotify*, PQnotifies, (PGconn * conn), (conn))
ORRERY_FORWARD(int, PQntuples, (const PGresult* res), (res))
ORRERY_FORWARD(Oid, PQoidValue, (const PGresult* res), (res))
ORRERY_FORWARD(char*, PQport, (const PGconn* conn), (conn))
ORRERY_FORWARD(PGresult*, PQprepare,
               (PGconn * conn, const char* stmtName, const char* query, int nParams,
                const Oid* paramTypes),
               (conn, stmtName, query, nParams, paramTypes))
ORRERY_FORWARD(int, PQprotocolVersion, (const PGconn* conn), (conn))
ORRERY_FORWARD(int, PQputCopyData, (PGconn * conn, const char* buffer, int nbytes),
               (conn, buffer, nbytes))
ORRERY_FORWARD(int, PQputCopyEnd, (PGconn * conn, const char* errormsg), (conn, errormsg))
ORRERY_FORWARD(void, PQreset, (PGconn * conn), (conn))
ORRERY_FORWARD(char*, PQresultErrorField, (const PGresult* res, int fieldcode), (res, fieldcode))
ORRERY_FORWARD(char*, PQresultErrorMessage, (const PGresult* res), (res))
ORRERY_FORWARD(ExecStatusType, PQresultStatus, (const PGresult* res), (res))
ORRERY_FORWARD(int, PQsendQuery, (PGconn * conn, const char* query), (conn, query))
ORRERY_FORWARD(int, PQserverVersion, (const PGconn* conn), (conn))
ORRERY_FORWARD(int, PQsetClientEncoding, (PGconn * conn, const char* encoding), (conn, encoding))
ORRERY_FORWARD(PGVerbosity, PQsetErrorVerbosity, (PGconn * conn, PGVerbosity verbosity),
               (conn, verbosity))
ORRERY_FORWARD(PQnoticeProcessor, PQsetNoticeProcessor,
               (PGconn * conn, PQnoticeProcessor proc, void* arg), (conn, proc, arg))
ORRERY_FORWARD(int, PQsocket, (const PGconn* conn), (conn))
ORRERY_FORWARD(ConnStatusType, PQstatus, (const PGconn* conn), (conn))
ORRERY_FORWARD(void, PQtrace, (PGconn * conn, FILE* debug_port), (conn, debug_port))
ORRERY_FORWARD(unsigned char*, PQunescapeBytea, (const unsigned char* strtext, size_t* retbuflen),
               (strtext, retbuflen))
ORRERY_FORWARD(void, PQuntrace, (PGconn * conn), (conn))
ORRERY_FORWARD(char*, PQuser, (const PGconn* conn), (conn))
ORRERY_FORWARD(int, lo_close, (PGconn * conn, int fd), (conn, fd))
ORRERY_FORWARD(Oid, lo_creat, (PGconn * conn, int mode), (conn, mode))
ORRERY_FORWARD(int, lo_export, (PGconn * conn, Oid lobjId, const char* filename),
               (conn, lobjId, filename))
ORRERY_FORWARD(Oid, lo_import, (PGconn * conn, const char* filename), (conn, filename))
ORRERY_FORWARD(int, lo_lseek, (PGconn * conn, int fd, int offset, int whence),
               (conn, fd, offset, whence))
ORRERY_FORWARD(int, lo_open, (PGconn * conn, Oid lobjId, int mode), (conn, lobjId, mode))
ORRERY_FORWARD(int, lo_read, (PGconn * conn, int fd, char* buf, size_t len), (conn, fd, buf, len))
ORRERY_FORWARD(int, lo_tell, (PGconn * conn, int fd), (conn, fd))
ORRERY_FORWARD(int, lo_unlink, (PGconn * conn, Oid lobjId), (conn, lobjId))
ORRERY_FORWARD(int, lo_write, (PGconn * conn, int fd, const char* buf, size_t len),
               (conn, fd, buf, len))
ORRERY_FORWARD(const char*, pg_encoding_to_char, (int encoding), (encoding))

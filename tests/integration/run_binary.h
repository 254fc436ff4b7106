// Runs the orrery binary as a child process, without a shell, and captures
// what it writes. Black-box tests see the binary only through this.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace orrery {

struct RunResult {
  int exit_code = -1;   // the exit status, or -1 when the child did not exit normally
  int term_signal = 0;  // the signal that ended the child, or 0
  std::string out;      // everything written to stdout
  std::string err;      // everything written to stderr
};

// Extra environment entries, added to (or replacing those of) the test's own.
using EnvVars = std::vector<std::pair<std::string, std::string>>;

// Runs `program` with `args` (argv[1..]) and the test environment plus `env`,
// in directory `cwd` (empty: the test's); stdin is /dev/null. Reads stdout
// and stderr concurrently, so output of any size cannot block the child.
// Throws std::runtime_error if the child cannot be started.
RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const EnvVars& env = {}, const std::string& cwd = "");

// The path of the binary under test (build/…/orrery), as a C string.
const char* orrery_binary();
#define ORRERY_BINARY (::orrery::orrery_binary())

// run_program on the binary under test (ORRERY_BINARY).
RunResult run_orrery(const std::vector<std::string>& args, const EnvVars& env = {});
// The same, started in directory `cwd`.
RunResult run_orrery_in(const std::string& cwd, const std::vector<std::string>& args,
                        const EnvVars& env = {});

// The command and everything it printed, for a failing assertion to explain itself.
std::string describe(const std::vector<std::string>& args, const RunResult& result);

// Whether text has the shape of `pattern`, where '9' stands for any digit.
bool has_shape(const std::string& text, const std::string& pattern);

// Whether text is a time as orrery prints it: YYYY-MM-DDTHH:MM:SS.mmmZ.
inline bool is_time_text(const std::string& text) {
  return has_shape(text, "9999-99-99T99:99:99.999Z");
}

// Milliseconds since the epoch of a time as orrery prints it
// (YYYY-MM-DDTHH:MM:SS.mmmZ).
std::int64_t time_ms(const std::string& text);

// The lines of `text`, without their newlines.
std::vector<std::string> lines(const std::string& text);

}  // namespace orrery

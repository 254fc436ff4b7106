#include "exec/run_files_scrub.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "store/home_layout.h"
#include "store/regular_file.h"

namespace orrery {
namespace {

// Removes `path` after `why` kept it from being scrubbed.
Status remove_unscrubbable(const std::string& path, const std::string& why) {
  if (::unlink(path.c_str()) == 0 || errno == ENOENT) return Ok{};
  return internal_error("cannot scrub " + path + " (" + why +
                        ") nor remove it: " + std::strerror(errno));
}

// What lstat says `path` is (0 when it cannot say): no link is followed.
mode_t file_type(const std::string& path) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0 ? status.st_mode & S_IFMT : 0;
}

// The names in `dir`; none when it is not there.
Result<std::vector<std::string>> names_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code error;
  std::filesystem::directory_iterator entries(dir, error);
  const std::filesystem::directory_iterator end;
  for (; !error && entries != end; entries.increment(error))
    names.push_back(entries->path().filename().string());
  if (error == std::errc::no_such_file_or_directory) return names;
  if (error) return internal_error("cannot list " + dir + " to scrub it: " + error.message());
  return names;
}

}  // namespace

Status scrub_file_in_place(Env& env, const std::string& path, const Scrubber& scrubber) {
  auto file = read_regular_file(path, kMaxScrubbedFileBytes);
  if (!file) return remove_unscrubbable(path, file.error().message);
  if (!file->has_value()) return Ok{};
  const std::string scrubbed = scrubber.scrub(**file);
  if (scrubbed == **file) return Ok{};
  if (auto written = write_file_atomically(env, path, scrubbed, 0600); !written)
    return remove_unscrubbable(path, written.error().message);
  return Ok{};
}

Status scrub_run_files(Env& env, const std::string& dir, const Scrubber& scrubber) {
  auto names = names_in(dir);
  if (!names) return names.error();
  Status status = Ok{};
  for (const std::string& name : *names) {
    const std::string path = dir + "/" + name;
    if (RunDirectory::is_log(name) || file_type(path) != S_IFREG) continue;
    if (auto scrubbed = scrub_file_in_place(env, path, scrubber); !scrubbed && status)
      status = scrubbed;
  }
  return status;
}

Status scrub_workflow_run_files(Env& env, const HomeLayout& layout, const std::string& run_id,
                                const Scrubber& scrubber) {
  Status status = scrub_run_files(env, layout.workflow_run(run_id), scrubber);
  auto steps = names_in(layout.workflow_steps(run_id));
  if (!steps) return status ? steps.error() : status;
  for (const std::string& step : *steps) {
    const RunDirectory dir = layout.step(run_id, step);
    if (file_type(dir.path()) != S_IFDIR) continue;
    if (auto scrubbed = scrub_run_files(env, dir.path(), scrubber); !scrubbed && status)
      status = scrubbed;
  }
  return status;
}

}  // namespace orrery

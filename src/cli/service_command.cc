#include "cli/service_command.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "store/data_dir.h"
#include "store/db_location.h"
#include "views/document_text.h"

namespace orrery::cli {
namespace {

namespace fs = std::filesystem;

std::string normal_path(const std::string& path) {
  std::string normal = fs::absolute(path).lexically_normal().string();
  if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

// The data directory as `open_store` resolves it.
std::string resolved_home(const Context& context) {
  return normal_path(context.globals.home.empty() ? default_data_dir() : context.globals.home);
}

// ${XDG_DATA_HOME:-~/.local/share}/orrery: the data directory when neither
// --home nor ORRERY_HOME is given.
std::string xdg_default_home() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/') {
    return normal_path(std::string(xdg) + "/orrery");
  }
  const char* home = std::getenv("HOME");
  return normal_path(std::string(home && *home ? home : ".") + "/.local/share/orrery");
}

// ${XDG_CONFIG_HOME:-~/.config}/systemd/user
Result<std::string> unit_directory() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg == '/') {
    return normal_path(std::string(xdg) + "/systemd/user");
  }
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home != '/') {
    return usage_error(
        "install-service needs HOME or XDG_CONFIG_HOME (an absolute path) to find the systemd "
        "user unit directory");
  }
  return normal_path(std::string(home) + "/.config/systemd/user");
}

std::string this_executable() {
  char path[PATH_MAX] = {};
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  return length > 0 ? std::string(path, size_t(length)) : std::string("orrery");
}

// A unit setting's value: specifiers escaped, control characters replaced.
std::string setting_text(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '%') {
      out += "%%";
    } else if (c < 0x20 || c == 0x7f) {
      out += '?';
    } else {
      out += char(c);
    }
  }
  return out;
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::optional<std::string> read_whole(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Writes the unit beside its final path, then renames it into place.
Status write_unit(const std::string& dir, const std::string& path, const std::string& text) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return internal_error("cannot create " + dir + ": " + error.message());
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    file << text;
    file.flush();
    if (!file) {
      std::remove(temporary.c_str());
      return internal_error("cannot write " + temporary + ": " + std::strerror(errno));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int why = errno;
    std::remove(temporary.c_str());
    return internal_error("cannot write " + path + ": " + std::strerror(why));
  }
  return Ok{};
}

std::vector<std::string> enable_commands(const std::string& name) {
  return {"systemctl --user daemon-reload", "systemctl --user enable --now " + name};
}

void print_result(const Context& context, const std::string& name, const std::string& path,
                  const std::string& unit, bool written, bool installed_before) {
  const std::vector<std::string> commands = enable_commands(name);
  if (context.globals.json) {
    *context.out << json_text({{"name", name},
                               {"path", path},
                               {"unit", unit},
                               {"written", written},
                               {"commands", commands}})
                 << '\n';
    return;
  }
  *context.out << (installed_before ? name + " is already installed at " + path : "wrote " + path)
               << "\nenable and start it with:\n  " << commands[0] << " && " << commands[1] << '\n';
}

}  // namespace

std::string systemd_word(const std::string& word) {
  std::string escaped;
  bool quote = word.empty();
  for (unsigned char c : word) {
    if (c == '%' || c == '$') escaped += char(c);  // doubled: no specifier, no variable
    if (c == ' ' || c == '"' || c == '\'' || c == '\\' || c == ';' || c < 0x20 || c == 0x7f) {
      quote = true;
    }
    if (c == '"' || c == '\\') {
      escaped += '\\';
      escaped += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      escaped += hex;
    } else {
      escaped += char(c);
    }
  }
  return quote ? "\"" + escaped + "\"" : escaped;
}

std::string service_unit(const std::vector<std::string>& command, const std::string& home) {
  std::string exec;
  for (const std::string& word : command) {
    if (!exec.empty()) exec += ' ';
    exec += systemd_word(word);
  }
  return "[Unit]\n"
         "Description=orrery scheduler daemon (" +
         setting_text(home) +
         ")\n"
         "\n"
         "[Service]\n"
         "Type=notify\n"
         "NotifyAccess=main\n"
         "ExecStart=" +
         exec +
         "\n"
         "Restart=on-failure\n"
         "RestartSec=2s\n"
         "WatchdogSec=60\n"
         "# Stop only the daemon: the supervisors of runs in flight finish and record them.\n"
         "KillMode=process\n"
         "\n"
         "[Install]\n"
         "WantedBy=default.target\n";
}

std::string service_name(const std::string& home, const std::string& default_home) {
  if (home == default_home) return "orrery.service";
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(home)));
  return "orrery-" + std::string(hex, 8) + ".service";
}

Result<int> install_service_command(const ServiceArgs& args, const Context& context) {
  const std::string home = resolved_home(context);
  std::vector<std::string> command{this_executable(), "--home", home};
  if (context.globals.db_given || !context.globals.db.empty()) {
    // The daemon starts in /: the database is named by its absolute path.
    auto db = db_location_of(context.globals.db);
    if (!db) return db.error();
    if (db->kind == DbLocation::Kind::kPostgres) {
      // The unit file and `--print` would show a password: it belongs in ~/.pgpass.
      const std::string shown = redacted_db_url(db->postgres_url);
      if (shown != db->postgres_url) {
        return usage_error("--db '" + shown +
                           "' holds a password, which install-service would write into the "
                           "unit file; put it in ~/.pgpass (or the file PGPASSFILE names) and "
                           "give the URL without it");
      }
      command.insert(command.end(), {"--db", db->postgres_url});
    } else {
      command.insert(command.end(), {"--db", normal_path(db->sqlite_path)});
    }
  }
  command.push_back("daemon");
  const std::string unit = service_unit(command, home);
  const std::string name = service_name(home, xdg_default_home());
  auto dir = unit_directory();
  if (!dir) return dir.error();
  const std::string path = *dir + "/" + name;
  if (args.print) {
    if (context.globals.json) {
      *context.out << json_text({{"name", name}, {"path", path}, {"unit", unit}}) << '\n';
    } else {
      *context.out << unit;
    }
    return 0;
  }
  const std::optional<std::string> existing = read_whole(path);
  if (existing && *existing == unit) {
    print_result(context, name, path, unit, false, true);
    return 0;
  }
  if (existing && !args.force) {
    return conflict_error(
        "a different unit is already installed at " + path +
        "; give --force to replace it (install-service --print shows the new one)");
  }
  if (auto written = write_unit(*dir, path, unit); !written) return written.error();
  print_result(context, name, path, unit, true, false);
  return 0;
}

}  // namespace orrery::cli

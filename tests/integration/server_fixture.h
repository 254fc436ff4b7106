// A fixture for black-box tests of `orrery serve` (docs/server.md): a
// WorkflowFixture that starts the real server on a free loopback port (it
// prints the port it bound), sends it requests over HTTP, and stops it when
// the test ends.
#pragma once

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "http_client.h"
#include "workflow_fixture.h"

namespace orrery {

class ServerFixture : public WorkflowFixture {
 protected:
  void TearDown() override {
    stop_server();
    WorkflowFixture::TearDown();
  }

  // Starts `orrery --home H serve --listen 127.0.0.1:0 EXTRA…` and waits
  // until it says where it listens; false when it exited instead.
  bool start_server(const Args& extra = {}) {
    server_log_ = tmp_ + "/server-" + std::to_string(++servers_) + ".log";
    Args args{ORRERY_BINARY, "--home", home_, "serve", "--listen", "127.0.0.1:0"};
    args.insert(args.end(), extra.begin(), extra.end());
    server_pid_ = fork();
    if (server_pid_ == 0) {
      const int null = open("/dev/null", O_RDWR);
      const int log = open(server_log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(null, STDIN_FILENO);
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
      std::vector<char*> argv;
      for (std::string& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    const std::string listening = "listening on http://127.0.0.1:";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string log = server_log();
      if (const size_t at = log.find(listening); at != std::string::npos) {
        const size_t digits = at + listening.size();
        const size_t end = log.find_first_not_of("0123456789", digits);
        if (end != std::string::npos && end > digits && log[end] == '\n') {
          port_ = std::stoi(log.substr(digits, end - digits));
          return true;
        }
      }
      if (waitpid(server_pid_, nullptr, WNOHANG) == server_pid_) {
        server_pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  std::string server_log() const { return read_file(server_log_); }

  // SIGTERM and the exit status (SIGKILL after 10 s: -1).
  int stop_server() {
    if (server_pid_ <= 0) return -1;
    ::kill(server_pid_, SIGTERM);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (waitpid(server_pid_, &status, WNOHANG) != server_pid_) {
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(server_pid_, SIGKILL);
        waitpid(server_pid_, nullptr, 0);
        server_pid_ = -1;
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    server_pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  HttpReply get(const std::string& path, const HttpHeaders& headers = {}) const {
    return http_request(port_, "GET", path, "", headers);
  }
  HttpReply post(const std::string& path, const std::string& body = "",
                 const HttpHeaders& headers = {}) const {
    return http_request(port_, "POST", path, body, headers);
  }
  HttpReply send(const std::string& method, const std::string& path, const std::string& body = "",
                 const HttpHeaders& headers = {}) const {
    return http_request(port_, method, path, body, headers);
  }

  // The body of a reply as JSON (discarded when it is not).
  static json body_of(const HttpReply& reply) {
    return json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  }

  // The request and its answer, for a failing assertion to explain itself.
  static std::string told(const HttpReply& reply) {
    return "status " + std::to_string(reply.status) + ": " + reply.body;
  }

  // The error code of an error document.
  static std::string error_code(const HttpReply& reply) {
    const json document = body_of(reply);
    if (!document.is_object() || !document.contains("error")) return "(no error document)";
    return document["error"].value("code", "(no code)");
  }

  pid_t server_pid_ = -1;
  int port_ = 0;
  int servers_ = 0;
  std::string server_log_;
};

}  // namespace orrery

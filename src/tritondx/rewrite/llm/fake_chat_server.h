// A scripted OpenAI-compatible chat-completions server on 127.0.0.1 (any free port), for
// tests and offline demos of the LLM rewriter: each request gets the next scripted reply
// (the last one repeats), and every request is kept for inspection.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace httplib {
class Server;
}

namespace tdx {

struct FakeReply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::map<std::string, std::string> headers;
  double delay_s = 0;                      // wait this long before answering
  std::optional<size_t> declared_length;   // announce this Content-Length, send `body`, close

  // A well-formed chat completion whose message is `content`.
  static FakeReply chat(const std::string& content, const std::string& finish_reason = "stop",
                        long long prompt_tokens = 1000, long long completion_tokens = 200);
  // An OpenAI-style error body with `status`.
  static FakeReply error(int status, const std::string& message);
};

struct ReceivedRequest {
  std::string method, path, authorization, content_type;
  std::string body;
  nlohmann::json json;  // the body parsed (null if it was not JSON)
};

class FakeChatServer {
 public:
  FakeChatServer();  // listening when it returns
  ~FakeChatServer();
  FakeChatServer(const FakeChatServer&) = delete;
  FakeChatServer& operator=(const FakeChatServer&) = delete;

  int port() const { return port_; }
  std::string base_url() const;  // "http://127.0.0.1:<port>/v1"

  void push(FakeReply reply);
  std::vector<ReceivedRequest> received() const;

 private:
  FakeReply next();
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable stopping_cv_;
  bool stopping_ = false;
  std::deque<FakeReply> script_;
  std::optional<FakeReply> last_;
  std::vector<ReceivedRequest> received_;
};

}  // namespace tdx

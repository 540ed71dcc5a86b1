#include "tritondx/rewrite/llm/fake_chat_server.h"

#include <chrono>

#include <httplib.h>

namespace tdx {

FakeReply FakeReply::chat(const std::string& content, const std::string& finish_reason, long long prompt_tokens,
                          long long completion_tokens) {
  nlohmann::json j{{"id", "chatcmpl-fake"},
                   {"object", "chat.completion"},
                   {"created", 0},
                   {"model", "fake-model"},
                   {"choices",
                    {{{"index", 0},
                      {"message", {{"role", "assistant"}, {"content", content}}},
                      {"finish_reason", finish_reason}}}},
                   {"usage",
                    {{"prompt_tokens", prompt_tokens},
                     {"completion_tokens", completion_tokens},
                     {"total_tokens", prompt_tokens + completion_tokens}}}};
  FakeReply r;
  r.body = j.dump();
  return r;
}

FakeReply FakeReply::error(int status, const std::string& message) {
  FakeReply r;
  r.status = status;
  r.body = nlohmann::json{{"error", {{"message", message}, {"type", "fake_error"}, {"code", status}}}}.dump();
  return r;
}

FakeChatServer::FakeChatServer() : server_(std::make_unique<httplib::Server>()) {
  server_->Post(R"(/v1/chat/completions)", [this](const httplib::Request& req, httplib::Response& res) {
    ReceivedRequest got{req.method, req.path, req.get_header_value("Authorization"),
                        req.get_header_value("Content-Type"), req.body, nullptr};
    try {
      got.json = nlohmann::json::parse(req.body);
    } catch (const nlohmann::json::exception&) {
    }
    {
      std::lock_guard lock(mutex_);
      received_.push_back(std::move(got));
    }
    FakeReply reply = next();
    if (reply.delay_s > 0) {
      std::unique_lock lock(mutex_);
      stopping_cv_.wait_for(lock, std::chrono::duration<double>(reply.delay_s), [this] { return stopping_; });
    }
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    if (reply.declared_length) {
      std::string body = reply.body;
      res.set_content_provider(*reply.declared_length, reply.content_type,
                               [body](size_t offset, size_t, httplib::DataSink& sink) {
                                 if (offset == 0) sink.write(body.data(), body.size());
                                 return false;  // abort: the client sees the connection close early
                               });
    } else {
      res.set_content(reply.body, reply.content_type.c_str());
    }
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // The socket already listens (connections queue); wait briefly for the accept loop too.
  for (int i = 0; i < 200 && !server_->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

FakeChatServer::~FakeChatServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stopping_cv_.notify_all();
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string FakeChatServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

void FakeChatServer::push(FakeReply reply) {
  std::lock_guard lock(mutex_);
  script_.push_back(std::move(reply));
}

std::vector<ReceivedRequest> FakeChatServer::received() const {
  std::lock_guard lock(mutex_);
  return received_;
}

FakeReply FakeChatServer::next() {
  std::lock_guard lock(mutex_);
  if (!script_.empty()) {
    last_ = std::move(script_.front());
    script_.pop_front();
  }
  if (last_) return *last_;
  return FakeReply::error(500, "the fake server has no scripted reply");
}

}  // namespace tdx

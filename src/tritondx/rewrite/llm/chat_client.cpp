#include "tritondx/rewrite/llm/chat_client.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

namespace tdx {

std::string_view call_status_name(CallStatus status) {
  switch (status) {
    case CallStatus::Ok: return "ok";
    case CallStatus::HttpError: return "http-error";
    case CallStatus::Timeout: return "timeout";
    case CallStatus::Connection: return "connection";
    case CallStatus::Malformed: return "malformed";
    case CallStatus::Truncated: return "truncated";
  }
  return "unknown";
}

void LlmTotals::add(const nlohmann::json& r) {
  ++calls;
  if (r.value("status", "") != "ok") ++failed_calls;
  auto number = [&](const char* key) -> double {
    auto it = r.find(key);
    return (it != r.end() && it->is_number()) ? it->get<double>() : 0.0;
  };
  prompt_tokens += static_cast<long long>(number("prompt_tokens"));
  completion_tokens += static_cast<long long>(number("completion_tokens"));
  cost_usd += number("cost_usd");
}

namespace {

std::string head(const std::string& text, size_t n) {
  return text.size() <= n ? text : text.substr(0, n) + "...";
}

// "http://host:port/v1" -> {"http://host:port", "/v1"}.
std::pair<std::string, std::string> split_base_url(const std::string& url) {
  auto scheme_end = url.find("://");
  size_t host_start = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  auto path_start = url.find('/', host_start);
  if (path_start == std::string::npos) return {url, ""};
  std::string prefix = url.substr(path_start);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return {url.substr(0, path_start), prefix};
}

// The message an OpenAI-style error body carries ({"error": {"message": ...}}), else its head.
std::string error_message(const std::string& body) {
  try {
    auto j = nlohmann::json::parse(body);
    if (j.is_object()) {
      if (auto e = j.find("error"); e != j.end()) {
        if (e->is_object() && e->contains("message") && (*e)["message"].is_string())
          return (*e)["message"].get<std::string>();
        if (e->is_string()) return e->get<std::string>();
      }
      if (auto m = j.find("message"); m != j.end() && m->is_string()) return m->get<std::string>();
    }
  } catch (const nlohmann::json::exception&) {
  }
  return head(body, 300);
}

std::string http_error_text(int status, const std::string& body) {
  std::string what;
  switch (status) {
    case 400: what = "bad request"; break;
    case 401: what = "unauthorized: check the API key (TRITONDX_LLM_API_KEY)"; break;
    case 403: what = "forbidden: the API key may not use this model"; break;
    case 404: what = "not found: check the base URL and the model name"; break;
    case 408: what = "request timeout"; break;
    case 429: what = "rate limited"; break;
    default: what = status >= 500 ? "server error" : "unexpected status"; break;
  }
  std::string msg = error_message(body);
  return msg.empty() ? fmt::format("HTTP {} ({})", status, what) : fmt::format("HTTP {} ({}): {}", status, what, msg);
}

bool retryable_http(int status) { return status == 408 || status == 429 || (status >= 500 && status <= 599); }

// Retry-After as seconds (the HTTP-date form is not used by these APIs and is ignored).
std::optional<double> retry_after(const httplib::Response& res) {
  if (!res.has_header("Retry-After")) return std::nullopt;
  const std::string v = res.get_header_value("Retry-After");
  try {
    size_t used = 0;
    double s = std::stod(v, &used);
    if (used == v.size() && s >= 0 && std::isfinite(s)) return s;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

void set_timeouts(httplib::Client& cli, double seconds) {
  auto sec = static_cast<time_t>(seconds);
  auto usec = static_cast<time_t>((seconds - static_cast<double>(sec)) * 1e6);
  cli.set_connection_timeout(sec, usec);
  cli.set_read_timeout(sec, usec);
  cli.set_write_timeout(sec, usec);
}

}  // namespace

ParsedReply parse_chat_reply(const std::string& body) {
  ParsedReply out;
  auto bad = [&](CallStatus s, std::string why) {
    out.status = s;
    out.error = std::move(why);
    return out;
  };
  if (body.empty()) return bad(CallStatus::Truncated, "the reply body is empty");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    if (e.byte >= body.size())
      return bad(CallStatus::Truncated, fmt::format("the reply body ends in the middle of its JSON ({} bytes)", body.size()));
    return bad(CallStatus::Malformed, fmt::format("the reply body is not JSON: {}", e.what()));
  }
  if (!j.is_object()) return bad(CallStatus::Malformed, "the reply body is not a JSON object");
  if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
    if (auto p = u->find("prompt_tokens"); p != u->end() && p->is_number_integer()) out.reply.prompt_tokens = p->get<long long>();
    if (auto c = u->find("completion_tokens"); c != u->end() && c->is_number_integer())
      out.reply.completion_tokens = c->get<long long>();
  }
  if (auto m = j.find("model"); m != j.end() && m->is_string()) out.reply.model = m->get<std::string>();
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) {
    if (j.contains("error")) return bad(CallStatus::Malformed, "the server answered with an error: " + error_message(body));
    return bad(CallStatus::Malformed, "the reply has no choices");
  }
  const auto& choice = (*choices)[0];
  if (!choice.is_object()) return bad(CallStatus::Malformed, "choices[0] is not an object");
  if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string()) out.reply.finish_reason = f->get<std::string>();
  auto message = choice.find("message");
  if (message == choice.end() || !message->is_object()) return bad(CallStatus::Malformed, "choices[0] has no message");
  auto content = message->find("content");
  if (content == message->end() || !content->is_string()) {
    if (auto r = message->find("refusal"); r != message->end() && r->is_string())
      return bad(CallStatus::Malformed, "the model refused: " + head(r->get<std::string>(), 300));
    return bad(CallStatus::Malformed, "choices[0].message has no text content");
  }
  out.reply.content = content->get<std::string>();
  if (out.reply.finish_reason == "length")
    return bad(CallStatus::Truncated,
               fmt::format("the reply was cut off at the token limit (finish_reason \"length\" after {} completion "
                           "tokens); raise max_tokens",
                           out.reply.completion_tokens));
  if (out.reply.finish_reason == "content_filter")
    return bad(CallStatus::Malformed, "the reply was stopped by the content filter");
  return out;
}

ChatClient::ChatClient(LlmConfig config)
    : config_(std::move(config)),
      sleep_([](std::chrono::duration<double> d) { std::this_thread::sleep_for(d); }) {}

nlohmann::json ChatClient::request_body(const std::vector<ChatMessage>& messages) const {
  nlohmann::json m = nlohmann::json::array();
  for (const auto& msg : messages) m.push_back({{"role", msg.role}, {"content", msg.content}});
  return {{"model", config_.model},
          {"messages", std::move(m)},
          {"temperature", config_.temperature},
          {"max_tokens", config_.max_tokens}};
}

std::vector<nlohmann::json> ChatClient::take_calls() {
  std::vector<nlohmann::json> out;
  out.swap(calls_);
  return out;
}

Expected<ChatReply> ChatClient::complete(const std::vector<ChatMessage>& messages) {
  const std::string endpoint = config_.endpoint();
  const auto [host, prefix] = split_base_url(config_.base_url);
  const std::string body = request_body(messages).dump();
  const int attempts = 1 + std::max(0, config_.max_retries);
  std::string last_error;

  for (int attempt = 1; attempt <= attempts; ++attempt) {
    nlohmann::json record{{"model", config_.model},   {"endpoint", endpoint}, {"attempt", attempt},
                          {"status", "ok"},            {"http_status", nullptr}, {"prompt_tokens", nullptr},
                          {"completion_tokens", nullptr}, {"cost_usd", nullptr}, {"latency_s", 0.0},
                          {"request", body},           {"reply", nullptr},     {"error", nullptr},
                          {"finish_reason", nullptr},  {"wait_s", nullptr}};
    CallStatus status = CallStatus::Ok;
    bool retry = false;
    std::optional<double> server_wait;
    std::optional<ChatReply> success;

    httplib::Client cli(host);
    set_timeouts(cli, config_.timeout_s);
    cli.set_keep_alive(false);
    httplib::Request req;
    req.method = "POST";
    req.path = prefix + "/chat/completions";
    req.set_header("Content-Type", "application/json");
    req.set_header("Accept", "application/json");
    if (!config_.api_key.empty()) req.set_header("Authorization", "Bearer " + config_.api_key);
    req.body = body;
    bool got_headers = false;
    req.response_handler = [&](const httplib::Response&) {
      got_headers = true;
      return true;
    };
    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    const auto start = std::chrono::steady_clock::now();
    bool sent = false;
    try {
      sent = cli.send(req, res, err);
    } catch (const std::exception& e) {
      err = httplib::Error::Unknown;
      last_error = e.what();
    }
    const double latency = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    record["latency_s"] = latency;

    if (!sent) {
      retry = true;
      if (got_headers) {
        status = CallStatus::Truncated;
        record["http_status"] = res.status;
        record["reply"] = res.body;
        std::string declared = res.get_header_value("Content-Length");
        last_error = declared.empty()
                         ? fmt::format("the connection closed in the middle of the reply ({} bytes received)", res.body.size())
                         : fmt::format("the connection closed in the middle of the reply ({} of {} bytes received)",
                                       res.body.size(), declared);
      } else if (err == httplib::Error::ConnectionTimeout ||
                 (err == httplib::Error::Read && latency >= 0.9 * config_.timeout_s)) {
        status = CallStatus::Timeout;
        last_error = fmt::format("no reply within {} s", config_.timeout_s);
      } else if (err == httplib::Error::Read) {
        status = CallStatus::Connection;
        last_error = "the server closed the connection without replying";
      } else {
        status = CallStatus::Connection;
        last_error = fmt::format("cannot reach {}: {}", host,
                                 err == httplib::Error::Unknown && !last_error.empty() ? last_error : httplib::to_string(err));
      }
    } else {
      record["http_status"] = res.status;
      record["reply"] = res.body;
      if (res.status >= 200 && res.status < 300) {
        ParsedReply parsed = parse_chat_reply(res.body);
        if (parsed.reply.prompt_tokens || parsed.reply.completion_tokens) {
          record["prompt_tokens"] = parsed.reply.prompt_tokens;
          record["completion_tokens"] = parsed.reply.completion_tokens;
          record["cost_usd"] = config_.cost_usd(parsed.reply.prompt_tokens, parsed.reply.completion_tokens);
        }
        if (!parsed.reply.finish_reason.empty()) record["finish_reason"] = parsed.reply.finish_reason;
        status = parsed.status;
        if (status == CallStatus::Ok) {
          parsed.reply.cost_usd = config_.cost_usd(parsed.reply.prompt_tokens, parsed.reply.completion_tokens);
          parsed.reply.attempts = attempt;
          if (parsed.reply.model.empty()) parsed.reply.model = config_.model;
          success = std::move(parsed.reply);
        } else {
          last_error = parsed.error;
          // A body cut short is a transport accident worth another try; a malformed reply or
          // one cut at max_tokens would come back the same.
          retry = status == CallStatus::Truncated && parsed.reply.finish_reason != "length";
        }
      } else {
        status = CallStatus::HttpError;
        last_error = http_error_text(res.status, res.body);
        retry = retryable_http(res.status);
        server_wait = retry_after(res);
      }
    }

    record["status"] = std::string(call_status_name(status));
    if (status != CallStatus::Ok) record["error"] = last_error;
    const bool will_retry = retry && attempt < attempts;
    double wait = 0;
    if (will_retry) {
      wait = server_wait ? *server_wait : config_.backoff_base_s * std::pow(2.0, attempt - 1);
      wait = std::min(wait, config_.backoff_max_s);
      record["wait_s"] = wait;
    }
    totals_.add(record);
    calls_.push_back(std::move(record));
    if (success) return std::move(*success);
    if (!will_retry) {
      if (retry)
        return fail(Stage::Llm, fmt::format("{}: {} (gave up after {} attempts)", endpoint, last_error, attempt));
      return fail(Stage::Llm, fmt::format("{}: {}", endpoint, last_error));
    }
    if (wait > 0) sleep_(std::chrono::duration<double>(wait));
  }
  return fail(Stage::Llm, fmt::format("{}: {}", endpoint, last_error));  // not reached
}

}  // namespace tdx

// The LLM client against a scripted OpenAI-compatible server in this process (FakeChatServer):
// configuration, good replies, retries with backoff, error codes, truncated, malformed and
// cut-off replies, timeouts, and the call records with their token and cost accounting.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "../cli_test_util.h"
#include "tritondx/rewrite/llm/chat_client.h"
#include "tritondx/rewrite/llm/fake_chat_server.h"
#include "tritondx/rewrite/llm/llm_config.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir() { return cli_test::test_dir("tritondx-llm-tests"); }

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string write_temp(const std::string& name, const std::string& text) {
  fs::path dir = scratch_dir();
  fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

LlmConfig config_for(const FakeChatServer& server) {
  LlmConfig c;
  c.base_url = server.base_url();
  c.model = "test-model";
  c.api_key = "sk-test";
  c.timeout_s = 5;
  c.max_retries = 2;
  c.backoff_base_s = 1;
  c.backoff_max_s = 30;
  c.price_prompt_per_mtok = 2.0;
  c.price_completion_per_mtok = 10.0;
  return c;
}

// A client whose pauses are recorded instead of slept.
struct Harness {
  FakeChatServer server;
  std::vector<double> sleeps;
  std::unique_ptr<ChatClient> client;

  explicit Harness(std::function<void(LlmConfig&)> tweak = {}) {
    LlmConfig c = config_for(server);
    if (tweak) tweak(c);
    client = std::make_unique<ChatClient>(c);
    client->set_sleeper([this](std::chrono::duration<double> d) { sleeps.push_back(d.count()); });
  }
  Expected<ChatReply> ask() { return client->complete({{"system", "be brief"}, {"user", "hello"}}); }
};

// ---- configuration ----

TEST(LlmConfigTest, ReadsTheEnvironment) {
  auto c = load_llm_config("", env_of({{"TRITONDX_LLM_BASE_URL", "http://127.0.0.1:9/v1/"},
                                       {"TRITONDX_LLM_MODEL", "m"},
                                       {"TRITONDX_LLM_API_KEY", "k"},
                                       {"HOME", "/nonexistent"}}));
  ASSERT_TRUE(c.has_value()) << c.error().to_string();
  EXPECT_EQ(c->endpoint(), "http://127.0.0.1:9/v1/chat/completions");
  EXPECT_EQ(c->model, "m");
  EXPECT_EQ(c->api_key, "k");
  EXPECT_EQ(c->origin, "environment");
}

// A local model needs minutes per reply: the timeout, the token cap and the temperature come
// from the environment too (scripts/local-llm.sh env prints them).
TEST(LlmConfigTest, ReadsNumericSettingsFromTheEnvironment) {
  auto c = load_llm_config("", env_of({{"TRITONDX_LLM_BASE_URL", "http://h/v1"},
                                       {"TRITONDX_LLM_MODEL", "m"},
                                       {"TRITONDX_LLM_TIMEOUT_S", "900"},
                                       {"TRITONDX_LLM_MAX_TOKENS", "3000"},
                                       {"TRITONDX_LLM_TEMPERATURE", "0"},
                                       {"HOME", "/nonexistent"}}));
  ASSERT_TRUE(c.has_value()) << c.error().to_string();
  EXPECT_EQ(c->timeout_s, 900);
  EXPECT_EQ(c->max_tokens, 3000);
  EXPECT_EQ(c->temperature, 0);
}

TEST(LlmConfigTest, ANumericSettingThatIsNotANumberIsNamed) {
  auto c = load_llm_config("", env_of({{"TRITONDX_LLM_BASE_URL", "http://h/v1"},
                                       {"TRITONDX_LLM_MODEL", "m"},
                                       {"TRITONDX_LLM_TIMEOUT_S", "15min"},
                                       {"HOME", "/nonexistent"}}));
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().message, "TRITONDX_LLM_TIMEOUT_S is not a number: '15min'");
}

TEST(LlmConfigTest, ANumericSettingOutOfRangeIsRejected) {
  auto c = load_llm_config("", env_of({{"TRITONDX_LLM_BASE_URL", "http://h/v1"},
                                       {"TRITONDX_LLM_MODEL", "m"},
                                       {"TRITONDX_LLM_MAX_TOKENS", "0"},
                                       {"HOME", "/nonexistent"}}));
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message.find("max_tokens must be positive"), std::string::npos);
}

TEST(LlmConfigTest, OpenAiKeyAloneMeansOpenAi) {
  auto c = load_llm_config("", env_of({{"OPENAI_API_KEY", "sk"}, {"OPENAI_MODEL", "gpt-x"}, {"HOME", "/nonexistent"}}));
  ASSERT_TRUE(c.has_value()) << c.error().to_string();
  EXPECT_EQ(c->base_url, "https://api.openai.com/v1");
  EXPECT_EQ(c->api_key, "sk");
}

TEST(LlmConfigTest, TritondxVariablesWinOverOpenAiOnes) {
  auto c = load_llm_config("", env_of({{"OPENAI_API_KEY", "openai"},
                                       {"TRITONDX_LLM_API_KEY", "mine"},
                                       {"TRITONDX_LLM_BASE_URL", "http://h/v1"},
                                       {"TRITONDX_LLM_MODEL", "m"},
                                       {"HOME", "/nonexistent"}}));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->api_key, "mine");
}

TEST(LlmConfigTest, NothingConfiguredSaysHowToConfigure) {
  auto c = load_llm_config("", env_of({{"HOME", "/nonexistent"}}));
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().stage, Stage::Llm);
  EXPECT_NE(c.error().message.find("no LLM endpoint configured"), std::string::npos);
  EXPECT_NE(c.error().message.find("TRITONDX_LLM_BASE_URL"), std::string::npos);
  EXPECT_NE(c.error().message.find("recipes"), std::string::npos);
}

TEST(LlmConfigTest, MissingModelIsAnError) {
  auto c = load_llm_config("", env_of({{"TRITONDX_LLM_BASE_URL", "http://h/v1"}, {"HOME", "/nonexistent"}}));
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message.find("no LLM model"), std::string::npos);
}

TEST(LlmConfigTest, ReadsAFileWithAKeyFromTheEnvironment) {
  std::string path = write_temp("llm.json", R"({"base_url": "http://127.0.0.1:1234/v1", "model": "local",
    "api_key_env": "MY_KEY", "timeout_s": 7.5, "max_retries": 1, "temperature": 0.0, "max_tokens": 1000,
    "price_prompt_per_mtok": 1.5, "price_completion_per_mtok": 3})");
  auto c = load_llm_config(path, env_of({{"MY_KEY", "secret"}}));
  ASSERT_TRUE(c.has_value()) << c.error().to_string();
  EXPECT_EQ(c->model, "local");
  EXPECT_EQ(c->api_key, "secret");
  EXPECT_DOUBLE_EQ(c->timeout_s, 7.5);
  EXPECT_EQ(c->max_retries, 1);
  EXPECT_EQ(c->max_tokens, 1000);
  EXPECT_DOUBLE_EQ(c->cost_usd(1'000'000, 1'000'000), 4.5);
  EXPECT_EQ(c->origin, path);
  nlohmann::json dump = *c;
  EXPECT_EQ(dump.dump().find("secret"), std::string::npos) << "a config dump must not leak the key";
}

TEST(LlmConfigTest, TheDefaultFileIsFoundUnderXdgConfigHome) {
  fs::path dir = scratch_dir() / "xdg" / "tritondx";
  fs::create_directories(dir);
  std::ofstream(dir / "llm.json") << R"({"base_url": "http://127.0.0.1:5/v1", "model": "from-file"})";
  auto c = load_llm_config("", env_of({{"XDG_CONFIG_HOME", dir.parent_path().string()}, {"TRITONDX_LLM_MODEL", "env"}}));
  ASSERT_TRUE(c.has_value()) << c.error().to_string();
  EXPECT_EQ(c->base_url, "http://127.0.0.1:5/v1");
  EXPECT_EQ(c->model, "env") << "the environment overrides the file";
}

TEST(LlmConfigTest, FileErrorsNameTheFileAndSetting) {
  auto unknown = load_llm_config(write_temp("typo.json", R"({"base_url": "http://h/v1", "modle": "m"})"), env_of({}));
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("unknown setting 'modle'"), std::string::npos);
  EXPECT_NE(unknown.error().file.find("typo.json"), std::string::npos);

  auto type = load_llm_config(write_temp("type.json", R"({"base_url": "http://h/v1", "model": "m", "timeout_s": "9"})"),
                              env_of({}));
  ASSERT_FALSE(type.has_value());
  EXPECT_NE(type.error().message.find("timeout_s"), std::string::npos);

  auto json = load_llm_config(write_temp("bad.json", "{not json"), env_of({}));
  ASSERT_FALSE(json.has_value());
  EXPECT_NE(json.error().message.find("not valid JSON"), std::string::npos);

  auto missing = load_llm_config("/nonexistent/llm.json", env_of({}));
  ASSERT_FALSE(missing.has_value());

  auto scheme = load_llm_config(write_temp("scheme.json", R"({"base_url": "127.0.0.1:8080/v1", "model": "m"})"), env_of({}));
  ASSERT_FALSE(scheme.has_value());
  EXPECT_NE(scheme.error().message.find("http://"), std::string::npos);
}

// ---- the client ----

TEST(LlmClientTest, GoodReplyIsParsedAndRecorded) {
  Harness h;
  h.server.push(FakeReply::chat("the answer", "stop", 1200, 300));
  auto reply = h.ask();
  ASSERT_TRUE(reply.has_value()) << reply.error().to_string();
  EXPECT_EQ(reply->content, "the answer");
  EXPECT_EQ(reply->finish_reason, "stop");
  EXPECT_EQ(reply->prompt_tokens, 1200);
  EXPECT_EQ(reply->completion_tokens, 300);
  EXPECT_NEAR(reply->cost_usd, 1200 * 2.0 / 1e6 + 300 * 10.0 / 1e6, 1e-12);
  EXPECT_EQ(reply->attempts, 1);

  auto got = h.server.received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].path, "/v1/chat/completions");
  EXPECT_EQ(got[0].authorization, "Bearer sk-test");
  EXPECT_EQ(got[0].content_type, "application/json");
  EXPECT_EQ(got[0].json["model"], "test-model");
  EXPECT_EQ(got[0].json["messages"][0]["role"], "system");
  EXPECT_EQ(got[0].json["messages"][1]["content"], "hello");
  EXPECT_TRUE(got[0].json.contains("temperature"));
  EXPECT_TRUE(got[0].json.contains("max_tokens"));

  const auto& calls = h.client->calls();
  ASSERT_EQ(calls.size(), 1u);
  const auto& r = calls[0];
  for (const char* key : {"model", "endpoint", "attempt", "status", "http_status", "prompt_tokens", "completion_tokens",
                          "cost_usd", "latency_s", "request", "reply", "error"})
    EXPECT_TRUE(r.contains(key)) << key;
  EXPECT_EQ(r["status"], "ok");
  EXPECT_EQ(r["http_status"], 200);
  EXPECT_EQ(r["attempt"], 1);
  EXPECT_EQ(r["endpoint"], h.server.base_url() + "/chat/completions");
  EXPECT_TRUE(r["error"].is_null());
  EXPECT_TRUE(r["request"].is_string());
  EXPECT_EQ(r["request"].get<std::string>().find("sk-test"), std::string::npos) << "the key is never recorded";
  EXPECT_NE(r["reply"].get<std::string>().find("the answer"), std::string::npos);
  EXPECT_GE(r["latency_s"].get<double>(), 0.0);
  EXPECT_TRUE(h.sleeps.empty());
}

TEST(LlmClientTest, NoAuthorizationHeaderWithoutAKey) {
  Harness h([](LlmConfig& c) { c.api_key.clear(); });
  h.server.push(FakeReply::chat("ok"));
  ASSERT_TRUE(h.ask().has_value());
  EXPECT_EQ(h.server.received().at(0).authorization, "");
}

TEST(LlmClientTest, RateLimitIsRetriedAfterRetryAfter) {
  Harness h;
  FakeReply limited = FakeReply::error(429, "slow down");
  limited.headers["Retry-After"] = "3";
  h.server.push(limited);
  h.server.push(FakeReply::chat("second time lucky"));
  auto reply = h.ask();
  ASSERT_TRUE(reply.has_value()) << reply.error().to_string();
  EXPECT_EQ(reply->content, "second time lucky");
  EXPECT_EQ(reply->attempts, 2);
  const auto& calls = h.client->calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["status"], "http-error");
  EXPECT_EQ(calls[0]["http_status"], 429);
  EXPECT_NE(calls[0]["error"].get<std::string>().find("slow down"), std::string::npos);
  EXPECT_EQ(calls[0]["wait_s"], 3.0);
  EXPECT_EQ(calls[1]["status"], "ok");
  EXPECT_EQ(calls[1]["attempt"], 2);
  EXPECT_EQ(h.sleeps, std::vector<double>{3.0});
  EXPECT_EQ(h.server.received().size(), 2u);
}

TEST(LlmClientTest, ServerErrorsBackOffExponentiallyUntilRetriesRunOut) {
  Harness h;
  h.server.push(FakeReply::error(500, "boom"));
  auto reply = h.ask();
  ASSERT_FALSE(reply.has_value());
  EXPECT_EQ(reply.error().stage, Stage::Llm);
  EXPECT_NE(reply.error().message.find("HTTP 500"), std::string::npos);
  EXPECT_NE(reply.error().message.find("gave up after 3 attempts"), std::string::npos) << reply.error().message;
  ASSERT_EQ(h.client->calls().size(), 3u);
  for (const auto& c : h.client->calls()) EXPECT_EQ(c["status"], "http-error");
  EXPECT_EQ(h.sleeps, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(h.server.received().size(), 3u);
}

TEST(LlmClientTest, BackoffIsCapped) {
  Harness h([](LlmConfig& c) {
    c.max_retries = 4;
    c.backoff_base_s = 10;
    c.backoff_max_s = 25;
  });
  FakeReply unavailable = FakeReply::error(503, "overloaded");
  unavailable.headers["Retry-After"] = "600";
  h.server.push(FakeReply::error(502, "bad gateway"));
  h.server.push(FakeReply::error(502, "bad gateway"));
  h.server.push(FakeReply::error(502, "bad gateway"));
  h.server.push(unavailable);
  EXPECT_FALSE(h.ask().has_value());
  EXPECT_EQ(h.sleeps, (std::vector<double>{10.0, 20.0, 25.0, 25.0}));
}

TEST(LlmClientTest, UnauthorizedIsNotRetried) {
  Harness h;
  h.server.push(FakeReply::error(401, "Incorrect API key provided"));
  auto reply = h.ask();
  ASSERT_FALSE(reply.has_value());
  EXPECT_NE(reply.error().message.find("HTTP 401"), std::string::npos);
  EXPECT_NE(reply.error().message.find("API key"), std::string::npos);
  EXPECT_NE(reply.error().message.find("Incorrect API key provided"), std::string::npos);
  EXPECT_EQ(h.client->calls().size(), 1u);
  EXPECT_TRUE(h.sleeps.empty());
}

TEST(LlmClientTest, BadRequestAndNotFoundAreNotRetried) {
  for (int status : {400, 403, 404}) {
    Harness h;
    h.server.push(FakeReply::error(status, "nope"));
    auto reply = h.ask();
    ASSERT_FALSE(reply.has_value());
    EXPECT_NE(reply.error().message.find("HTTP " + std::to_string(status)), std::string::npos);
    EXPECT_EQ(h.server.received().size(), 1u) << status;
  }
}

TEST(LlmClientTest, ConnectionClosedInTheMiddleOfTheBodyIsTruncated) {
  Harness h([](LlmConfig& c) { c.max_retries = 1; });
  FakeReply cut = FakeReply::chat("never arrives whole");
  cut.declared_length = cut.body.size() + 500;
  cut.body = cut.body.substr(0, 40);
  h.server.push(cut);
  auto reply = h.ask();
  ASSERT_FALSE(reply.has_value());
  EXPECT_NE(reply.error().message.find("connection closed in the middle of the reply"), std::string::npos)
      << reply.error().message;
  ASSERT_EQ(h.client->calls().size(), 2u);
  EXPECT_EQ(h.client->calls()[0]["status"], "truncated");
  EXPECT_EQ(h.client->calls()[0]["http_status"], 200);
}

TEST(LlmClientTest, CutJsonBodyIsTruncatedAndRetried) {
  Harness h;
  FakeReply whole = FakeReply::chat("fine");
  FakeReply cut = whole;
  cut.body = whole.body.substr(0, whole.body.size() / 2);
  h.server.push(cut);
  h.server.push(whole);
  auto reply = h.ask();
  ASSERT_TRUE(reply.has_value()) << reply.error().to_string();
  ASSERT_EQ(h.client->calls().size(), 2u);
  EXPECT_EQ(h.client->calls()[0]["status"], "truncated");
  EXPECT_NE(h.client->calls()[0]["error"].get<std::string>().find("ends in the middle of its JSON"), std::string::npos);
}

TEST(LlmClientTest, MalformedJsonIsRejectedWithoutRetry) {
  Harness h;
  FakeReply bad;
  bad.body = "<html>gateway says hi</html>";
  h.server.push(bad);
  auto reply = h.ask();
  ASSERT_FALSE(reply.has_value());
  EXPECT_NE(reply.error().message.find("not JSON"), std::string::npos) << reply.error().message;
  ASSERT_EQ(h.client->calls().size(), 1u);
  EXPECT_EQ(h.client->calls()[0]["status"], "malformed");
}

TEST(LlmClientTest, ReplyWithoutChoicesIsMalformedButItsTokensCount) {
  Harness h;
  FakeReply empty;
  empty.body = R"({"id": "x", "object": "chat.completion", "choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 0}})";
  h.server.push(empty);
  auto reply = h.ask();
  ASSERT_FALSE(reply.has_value());
  EXPECT_NE(reply.error().message.find("no choices"), std::string::npos);
  ASSERT_EQ(h.client->calls().size(), 1u);
  EXPECT_EQ(h.client->calls()[0]["status"], "malformed");
  EXPECT_EQ(h.client->calls()[0]["prompt_tokens"], 50);
  EXPECT_EQ(h.client->totals().prompt_tokens, 50);
  EXPECT_EQ(h.client->totals().failed_calls, 1);
}

TEST(LlmClientTest, MessageWithoutContentIsMalformed) {
  Harness h;
  FakeReply refusal;
  refusal.body = R"({"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": "I cannot"}, "finish_reason": "stop"}]})";
  h.server.push(refusal);
  auto reply = h.ask();
  ASSERT_FALSE(reply.has_value());
  EXPECT_NE(reply.error().message.find("refused: I cannot"), std::string::npos);
}

TEST(LlmClientTest, FinishReasonLengthIsRejectedAndPaidFor) {
  Harness h;
  h.server.push(FakeReply::chat("```python\n@triton.jit\ndef k(", "length", 900, 8192));
  auto reply = h.ask();
  ASSERT_FALSE(reply.has_value());
  EXPECT_NE(reply.error().message.find("finish_reason \"length\""), std::string::npos);
  EXPECT_NE(reply.error().message.find("max_tokens"), std::string::npos);
  ASSERT_EQ(h.client->calls().size(), 1u) << "a reply cut at max_tokens would be cut again";
  EXPECT_EQ(h.client->calls()[0]["status"], "truncated");
  EXPECT_EQ(h.client->calls()[0]["finish_reason"], "length");
  EXPECT_EQ(h.client->calls()[0]["completion_tokens"], 8192);
  EXPECT_GT(h.client->totals().cost_usd, 0.0);
}

TEST(LlmClientTest, SlowServerTimesOut) {
  Harness h([](LlmConfig& c) {
    c.timeout_s = 0.3;
    c.max_retries = 1;
  });
  FakeReply slow = FakeReply::chat("too late");
  slow.delay_s = 3;
  h.server.push(slow);
  auto start = std::chrono::steady_clock::now();
  auto reply = h.ask();
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(reply.has_value());
  EXPECT_NE(reply.error().message.find("no reply within 0.3 s"), std::string::npos) << reply.error().message;
  ASSERT_EQ(h.client->calls().size(), 2u);
  EXPECT_EQ(h.client->calls()[0]["status"], "timeout");
  EXPECT_TRUE(h.client->calls()[0]["http_status"].is_null());
  EXPECT_LT(took, 2.5);
  EXPECT_EQ(h.sleeps.size(), 1u);
}

TEST(LlmClientTest, RefusedConnectionIsRetriedThenReported) {
  int port = 0;
  {
    FakeChatServer gone;  // a port that was free a moment ago and is closed now
    port = gone.port();
  }
  LlmConfig c;
  c.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  c.model = "m";
  c.max_retries = 1;
  c.timeout_s = 2;
  ChatClient client(c);
  std::vector<double> sleeps;
  client.set_sleeper([&](std::chrono::duration<double> d) { sleeps.push_back(d.count()); });
  auto reply = client.complete({{"user", "hi"}});
  ASSERT_FALSE(reply.has_value());
  EXPECT_NE(reply.error().message.find("cannot reach"), std::string::npos) << reply.error().message;
  ASSERT_EQ(client.calls().size(), 2u);
  EXPECT_EQ(client.calls()[0]["status"], "connection");
  EXPECT_EQ(sleeps.size(), 1u);
}

TEST(LlmClientTest, TokensAndCostAddUpOverCalls) {
  Harness h([](LlmConfig& c) { c.max_retries = 0; });
  h.server.push(FakeReply::chat("a", "stop", 1000, 100));
  h.server.push(FakeReply::chat("b", "stop", 2000, 400));
  h.server.push(FakeReply::error(400, "bad"));
  ASSERT_TRUE(h.ask().has_value());
  ASSERT_TRUE(h.ask().has_value());
  ASSERT_FALSE(h.ask().has_value());
  const auto& t = h.client->totals();
  EXPECT_EQ(t.calls, 3);
  EXPECT_EQ(t.failed_calls, 1);
  EXPECT_EQ(t.prompt_tokens, 3000);
  EXPECT_EQ(t.completion_tokens, 500);
  EXPECT_NEAR(t.cost_usd, 3000 * 2.0 / 1e6 + 500 * 10.0 / 1e6, 1e-12);
  double summed = 0;
  for (const auto& r : h.client->calls())
    if (r["cost_usd"].is_number()) summed += r["cost_usd"].get<double>();
  EXPECT_NEAR(summed, t.cost_usd, 1e-12);
  EXPECT_EQ(h.client->take_calls().size(), 3u);
  EXPECT_TRUE(h.client->calls().empty());
}

TEST(LlmClientTest, ParseChatReplyKeepsTheServersModelName) {
  auto parsed = parse_chat_reply(FakeReply::chat("x").body);
  EXPECT_EQ(parsed.status, CallStatus::Ok);
  EXPECT_EQ(parsed.reply.model, "fake-model");
  EXPECT_EQ(parse_chat_reply("").status, CallStatus::Truncated);
  EXPECT_EQ(parse_chat_reply("[1, 2]").status, CallStatus::Malformed);
  EXPECT_EQ(parse_chat_reply(R"({"error": {"message": "quota"}})").error, "the server answered with an error: quota");
}

}  // namespace
}  // namespace tdx

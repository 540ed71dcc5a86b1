#include "tritondx/rewrite/llm/llm_config.h"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

// TDX_TRY for Expected<void>.
#define TDX_LLM_CHECK(expr)                                            \
  do {                                                                 \
    if (auto tdx_check_ = (expr); !tdx_check_)                         \
      return std::unexpected(std::move(tdx_check_.error()));          \
  } while (0)

namespace tdx {

namespace fs = std::filesystem;

std::string LlmConfig::endpoint() const {
  std::string base = base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/chat/completions";
}

double LlmConfig::cost_usd(long long prompt_tokens, long long completion_tokens) const {
  return (static_cast<double>(prompt_tokens) * price_prompt_per_mtok +
          static_cast<double>(completion_tokens) * price_completion_per_mtok) / 1e6;
}

void to_json(nlohmann::json& j, const LlmConfig& c) {
  j = nlohmann::json{{"base_url", c.base_url},
                     {"model", c.model},
                     {"api_key_set", !c.api_key.empty()},
                     {"timeout_s", c.timeout_s},
                     {"max_retries", c.max_retries},
                     {"backoff_base_s", c.backoff_base_s},
                     {"backoff_max_s", c.backoff_max_s},
                     {"temperature", c.temperature},
                     {"max_tokens", c.max_tokens},
                     {"price_prompt_per_mtok", c.price_prompt_per_mtok},
                     {"price_completion_per_mtok", c.price_completion_per_mtok},
                     {"origin", c.origin}};
}

std::optional<std::string> system_env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

namespace {

std::optional<std::string> first_env(const EnvLookup& env, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto v = env(n); v && !v->empty()) return v;
  return std::nullopt;
}

// A numeric setting from the environment: whether it was set; a value that is not a number is an
// error naming the variable.
template <typename T>
Expected<bool> numeric_env(const EnvLookup& env, const char* name, T& out) {
  auto v = env(name);
  if (!v || v->empty()) return false;
  T parsed{};
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), parsed);
  if (ec != std::errc() || end != v->data() + v->size())
    return fail(Stage::Llm, fmt::format("{} is not a number: '{}'", name, *v));
  out = parsed;
  return true;
}

// A file setting of the expected JSON type, or an error naming the file and key.
template <class T>
Expected<void> take(const nlohmann::json& j, const char* key, T& out, const std::string& path) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  bool ok = false;
  if constexpr (std::is_same_v<T, std::string>) ok = it->is_string();
  else if constexpr (std::is_same_v<T, int>) ok = it->is_number_integer();
  else ok = it->is_number();
  if (!ok) return fail(Stage::Llm, fmt::format("'{}' has the wrong type ({})", key, it->type_name()), 0, path);
  out = it->get<T>();
  return {};
}

std::optional<fs::path> default_config_path(const EnvLookup& env) {
  if (auto xdg = env("XDG_CONFIG_HOME")) return fs::path(*xdg) / "tritondx" / "llm.json";
  if (auto home = env("HOME")) return fs::path(*home) / ".config" / "tritondx" / "llm.json";
  return std::nullopt;
}

Expected<void> check_ranges(const LlmConfig& c) {
  const std::string where = c.origin;
  if (c.timeout_s <= 0) return fail(Stage::Llm, "timeout_s must be positive", 0, where);
  if (c.max_retries < 0) return fail(Stage::Llm, "max_retries must not be negative", 0, where);
  if (c.backoff_base_s < 0 || c.backoff_max_s < 0) return fail(Stage::Llm, "backoff times must not be negative", 0, where);
  if (c.max_tokens <= 0) return fail(Stage::Llm, "max_tokens must be positive", 0, where);
  if (c.price_prompt_per_mtok < 0 || c.price_completion_per_mtok < 0)
    return fail(Stage::Llm, "prices must not be negative", 0, where);
  if (c.base_url.rfind("http://", 0) != 0 && c.base_url.rfind("https://", 0) != 0)
    return fail(Stage::Llm, fmt::format("base_url must start with http:// or https:// (got '{}')", c.base_url), 0, where);
  return {};
}

}  // namespace

Expected<void> read_llm_config_file(const std::string& path, LlmConfig& config, const EnvLookup& env) {
  std::ifstream in(path);
  if (!in) return fail(Stage::Llm, "cannot read the LLM configuration file", 0, path);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    return fail(Stage::Llm, fmt::format("not valid JSON: {}", e.what()), 0, path);
  }
  if (!j.is_object()) return fail(Stage::Llm, "the LLM configuration must be a JSON object", 0, path);
  static const std::set<std::string> known = {
      "base_url",    "model",         "api_key",    "api_key_env", "timeout_s",
      "max_retries", "backoff_base_s", "backoff_max_s", "temperature", "max_tokens",
      "price_prompt_per_mtok", "price_completion_per_mtok"};
  for (const auto& [key, value] : j.items())
    if (!known.contains(key)) return fail(Stage::Llm, fmt::format("unknown setting '{}'", key), 0, path);
  TDX_LLM_CHECK(take(j, "base_url", config.base_url, path));
  TDX_LLM_CHECK(take(j, "model", config.model, path));
  TDX_LLM_CHECK(take(j, "api_key", config.api_key, path));
  std::string key_env;
  TDX_LLM_CHECK(take(j, "api_key_env", key_env, path));
  if (!key_env.empty()) {
    auto key = env(key_env);
    if (!key) return fail(Stage::Llm, fmt::format("api_key_env names {}, which is not set", key_env), 0, path);
    config.api_key = *key;
  }
  TDX_LLM_CHECK(take(j, "timeout_s", config.timeout_s, path));
  TDX_LLM_CHECK(take(j, "max_retries", config.max_retries, path));
  TDX_LLM_CHECK(take(j, "backoff_base_s", config.backoff_base_s, path));
  TDX_LLM_CHECK(take(j, "backoff_max_s", config.backoff_max_s, path));
  TDX_LLM_CHECK(take(j, "temperature", config.temperature, path));
  TDX_LLM_CHECK(take(j, "max_tokens", config.max_tokens, path));
  TDX_LLM_CHECK(take(j, "price_prompt_per_mtok", config.price_prompt_per_mtok, path));
  TDX_LLM_CHECK(take(j, "price_completion_per_mtok", config.price_completion_per_mtok, path));
  config.origin = path;
  return {};
}

Expected<LlmConfig> load_llm_config(const std::string& path, const EnvLookup& env) {
  LlmConfig c;
  if (!path.empty()) {
    TDX_LLM_CHECK(read_llm_config_file(path, c, env));
  } else if (auto def = default_config_path(env); def && fs::exists(*def)) {
    TDX_LLM_CHECK(read_llm_config_file(def->string(), c, env));
  }
  bool from_env = false;
  if (auto v = first_env(env, {"TRITONDX_LLM_BASE_URL", "OPENAI_BASE_URL"})) c.base_url = *v, from_env = true;
  if (auto v = first_env(env, {"TRITONDX_LLM_MODEL", "OPENAI_MODEL"})) c.model = *v, from_env = true;
  if (auto v = first_env(env, {"TRITONDX_LLM_API_KEY", "OPENAI_API_KEY"})) c.api_key = *v, from_env = true;
  const bool timeout_set = TDX_TRY(numeric_env(env, "TRITONDX_LLM_TIMEOUT_S", c.timeout_s));
  const bool max_tokens_set = TDX_TRY(numeric_env(env, "TRITONDX_LLM_MAX_TOKENS", c.max_tokens));
  const bool temperature_set = TDX_TRY(numeric_env(env, "TRITONDX_LLM_TEMPERATURE", c.temperature));
  from_env = from_env || timeout_set || max_tokens_set || temperature_set;
  if (from_env) c.origin = c.origin.empty() ? "environment" : c.origin + " + environment";
  if (c.base_url.empty() && !c.api_key.empty()) c.base_url = "https://api.openai.com/v1";
  if (c.base_url.empty())
    return fail(Stage::Llm,
                "no LLM endpoint configured: set TRITONDX_LLM_BASE_URL, TRITONDX_LLM_MODEL and "
                "TRITONDX_LLM_API_KEY (or OPENAI_API_KEY), or write ~/.config/tritondx/llm.json "
                "(see docs/llm.md); without one only the built-in recipes run");
  if (c.model.empty())
    return fail(Stage::Llm, fmt::format("no LLM model configured for {}: set TRITONDX_LLM_MODEL or \"model\" "
                                        "in the configuration file",
                                        c.base_url));
  TDX_LLM_CHECK(check_ranges(c));
  return c;
}

}  // namespace tdx

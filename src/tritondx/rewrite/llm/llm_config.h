// Where the LLM rewriter sends its requests: an OpenAI-compatible chat-completions endpoint,
// configured from the environment or a JSON file (docs/llm.md). Without one, the optimizer
// runs the built-in recipes only.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tritondx/core/diagnostic.h"

namespace tdx {

struct LlmConfig {
  std::string base_url;  // "https://api.openai.com/v1", "http://127.0.0.1:8080/v1"
  std::string model;
  std::string api_key;   // empty: no Authorization header (local servers)
  double timeout_s = 120;       // connect, read and write timeout of one HTTP attempt
  int max_retries = 3;          // retries after the first attempt (429, 5xx, timeouts, lost connections)
  double backoff_base_s = 2;    // the n-th retry waits backoff_base_s * 2^(n-1) ...
  double backoff_max_s = 60;    // ... at most this long (also caps Retry-After)
  double temperature = 0.2;
  int max_tokens = 8192;
  double price_prompt_per_mtok = 0;      // USD per 1M prompt tokens (0: unknown, cost 0)
  double price_completion_per_mtok = 0;  // USD per 1M completion tokens
  std::string origin;  // where the settings came from ("environment", a file path, ...)

  // The "/chat/completions" URL the client posts to.
  std::string endpoint() const;
  double cost_usd(long long prompt_tokens, long long completion_tokens) const;
};

// Everything but the API key (a config dump must never leak it).
void to_json(nlohmann::json& j, const LlmConfig& c);

// Reads the environment (std::getenv by default; injectable for tests).
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
std::optional<std::string> system_env(const std::string& name);

// The settings of a JSON file: base_url, model, api_key or api_key_env (the name of the
// variable holding the key), timeout_s, max_retries, backoff_base_s, backoff_max_s,
// temperature, max_tokens, price_prompt_per_mtok, price_completion_per_mtok. Unknown keys
// and wrong types are errors naming the file.
Expected<void> read_llm_config_file(const std::string& path, LlmConfig& config, const EnvLookup& env = system_env);

// The configuration in effect: the file `path` when given (it must exist), otherwise
// $XDG_CONFIG_HOME/tritondx/llm.json or ~/.config/tritondx/llm.json when present; then the
// environment on top: TRITONDX_LLM_BASE_URL, TRITONDX_LLM_MODEL, TRITONDX_LLM_API_KEY
// (falling back to OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY), and TRITONDX_LLM_TIMEOUT_S,
// TRITONDX_LLM_MAX_TOKENS and TRITONDX_LLM_TEMPERATURE (numbers). An API key alone means
// https://api.openai.com/v1. Fails with a message saying how to configure one when no
// endpoint or no model is set.
Expected<LlmConfig> load_llm_config(const std::string& path = {}, const EnvLookup& env = system_env);

}  // namespace tdx

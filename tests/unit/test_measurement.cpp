// Reading the bridge's run/verify replies: failures at test input shapes and the timing loop's
// audited call are kept apart from make_inputs' draws.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "../cli_test_util.h"
#include "tritondx/measure/measurement.h"

namespace tdx {
namespace {

nlohmann::json fixture(const std::string& name) {
  return nlohmann::json::parse(cli_test::read(std::string(TRITONDX_FIXTURES_DIR) + "/verify/" + name));
}

TEST(Measurement, FailuresAtATestInputAreTheTestInputs) {
  Measurement m = measurement_from_json(fixture("wrong_at_test_input.json"));
  EXPECT_FALSE(m.correct);
  EXPECT_EQ(m.draws, 1) << "only make_inputs' draws count as draws";
  EXPECT_EQ(m.test_inputs, 3);
  EXPECT_EQ(m.test_inputs_checked, 2);
  ASSERT_EQ(m.failures.size(), 1u);
  EXPECT_EQ(m.failures[0].test_input, 1);
  EXPECT_TRUE(m.failures[0].message.starts_with("at test input 1 (1000 float32): against the reference: "))
      << m.failures[0].message;
  EXPECT_TRUE(failed_only_at_test_inputs(m));
  nlohmann::json j = m;
  EXPECT_EQ(j["failures"][0]["test_input"], 1);
  EXPECT_EQ(j["test_inputs_checked"], 2);
}

TEST(Measurement, AFailureAtMakeInputsIsNotATestShapeFailure) {
  nlohmann::json reply = fixture("wrong_at_test_input.json");
  reply["correctness"]["draws"][0]["passed"] = false;
  reply["correctness"]["draws"][0]["failures"] = {{{"output", 0}, {"message", "output 0: 3 of 4096 elements"}}};
  Measurement m = measurement_from_json(reply);
  EXPECT_FALSE(failed_only_at_test_inputs(m));
}

TEST(Measurement, TheAuditedCallOfTheTimingLoop) {
  Measurement m = measurement_from_json(fixture("audit_caught_a_cache.json"));
  EXPECT_TRUE(m.correct);
  EXPECT_TRUE(m.recheck_passed);
  EXPECT_FALSE(m.audit_passed);
  EXPECT_EQ(m.audit_note, "call 26 of 60 in the timing loop audited on fresh inputs");
  ASSERT_EQ(m.failures.size(), 1u);
  EXPECT_TRUE(m.failures[0].message.starts_with("the call audited at iteration 26 of 60 in the timing loop"))
      << m.failures[0].message;

  nlohmann::json skipped = fixture("audit_caught_a_cache.json");
  skipped["audit"] = {{"skipped", "a loop of 1 call(s) has no call inside it to audit"}};
  m = measurement_from_json(skipped);
  EXPECT_TRUE(m.audit_passed);
  EXPECT_EQ(m.audit_note, "no call audited inside the timing loop: a loop of 1 call(s) has no call inside it to audit");
}

}  // namespace
}  // namespace tdx

// LLVM IR parser: functions, instruction fields, inline asm, !dbg resolution.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tritondx/ir/llvm_ir.h"

namespace tdx {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string fixture(const std::string& rel) { return read_file(std::string(TRITONDX_FIXTURES_DIR) + "/" + rel); }

int example_line(const std::string& file, const std::string& needle) {
  std::istringstream in(read_file(std::string(TRITONDX_SOURCE_DIR) + "/examples/" + file));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(needle) != std::string::npos) return n;
  return 0;
}

// Trimmed Triton 3.6.0 .llir (vector add, plus an inlined helper and a loop block).
constexpr std::string_view kLlir = R"(; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"

; Function Attrs: nounwind
define ptx_kernel void @add_kernel(ptr addrspace(1) %0, i32 %1) local_unnamed_addr #0 !dbg !4 {
  %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !7
  %4 = shl nuw nsw i32 %3, 10, !dbg !8
  %5 = getelementptr float, ptr addrspace(1) %0, i64 0, !dbg !8
  %6 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, 0x0;\0A\09@$5 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];", "=r,=r,=r,=r,l,b"(ptr addrspace(1) %5, i1 true) #2, !dbg !9
  %7 = extractvalue { i32, i32, i32, i32 } %6, 0, !dbg !9
  br label %8

8:                                                ; preds = %8, %2
  %9 = phi i32 [ 0, %2 ], [ %10, %8 ]
  %10 = add i32 %9, 1, !dbg !10
  %11 = icmp slt i32 %10, %1, !dbg !10
  br i1 %11, label %8, label %12, !dbg !10

12:
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %7, i32 %7, i32 %7, i32 %7, ptr addrspace(1) %5, i1 true) #2, !dbg !11
  ret void, !dbg !11
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

attributes #0 = { nounwind "nvvm.reqntid"="128" }

!llvm.dbg.cu = !{!0}
!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: "triton", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "kernels.py", directory: "/tmp/ll")
!4 = distinct !DISubprogram(name: "add_kernel", linkageName: "add_kernel", scope: !1, file: !1, line: 4, type: !5, scopeLine: 4, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!5 = !DISubroutineType(cc: DW_CC_normal, types: !6)
!6 = !{}
!7 = !DILocation(line: 5, column: 24, scope: !4)
!8 = !DILocation(line: 6, column: 17, scope: !4)
!9 = !DILocation(line: 8, column: 16, scope: !4)
!10 = !DILocation(line: 170, column: 27, scope: !12, inlinedAt: !14)
!11 = !DILocation(line: 10, column: 29, scope: !4)
!12 = distinct !DILexicalBlockFile(scope: !4, file: !13, discriminator: 0)
!13 = !DIFile(filename: "standard.py", directory: "/site-packages/triton/language")
!14 = !DILocation(line: 17, column: 19, scope: !4)
)";

TEST(LlvmIrParser, ReadsFunctionsAndRanges) {
  auto m = parse_llvm_ir(kLlir);
  ASSERT_TRUE(m) << m.error().to_string();
  ASSERT_EQ(m->functions.size(), 2u);
  const auto& k = m->functions[0];
  EXPECT_EQ(k.name, "add_kernel");
  EXPECT_TRUE(k.is_definition);
  EXPECT_EQ(k.line, 5);
  EXPECT_EQ(k.first_instruction, 0);
  EXPECT_EQ(k.end_instruction, 12);
  const auto& d = m->functions[1];
  EXPECT_EQ(d.name, "llvm.nvvm.read.ptx.sreg.ctaid.x");
  EXPECT_FALSE(d.is_definition);
  EXPECT_EQ(d.first_instruction, -1);
  ASSERT_EQ(m->instructions.size(), 12u);
}

TEST(LlvmIrParser, ReadsInstructionFields) {
  auto m = parse_llvm_ir(kLlir);
  ASSERT_TRUE(m) << m.error().to_string();
  const auto& ins = m->instructions;
  EXPECT_EQ(ins[0].result, "%3");
  EXPECT_EQ(ins[0].opcode, "call");
  EXPECT_EQ(ins[0].type, "i32");
  EXPECT_EQ(ins[0].callee, "@llvm.nvvm.read.ptx.sreg.ctaid.x");
  EXPECT_EQ(ins[0].line, 6);
  EXPECT_EQ(ins[0].function, "add_kernel");
  EXPECT_EQ(ins[0].block, "");
  EXPECT_EQ(ins[1].opcode, "shl");
  EXPECT_EQ(ins[1].type, "i32");
  EXPECT_EQ(ins[2].opcode, "getelementptr");
  EXPECT_EQ(ins[2].type, "float");
  EXPECT_EQ(ins[4].type, "{ i32, i32, i32, i32 }");
  EXPECT_EQ(ins[5].opcode, "br");
  EXPECT_EQ(ins[5].dbg, -1);
  EXPECT_FALSE(ins[5].loc.known());
  EXPECT_EQ(ins[6].opcode, "phi");
  EXPECT_EQ(ins[6].block, "8");
  EXPECT_EQ(ins[8].opcode, "icmp");
  EXPECT_EQ(ins[8].type, "i32");
  EXPECT_EQ(ins[11].block, "12");
  EXPECT_EQ(ins[11].result, "");
  EXPECT_EQ(ins[11].opcode, "ret");
  EXPECT_EQ(ins[10].block, "12");
}

TEST(LlvmIrParser, DecodesInlineAsm) {
  auto m = parse_llvm_ir(kLlir);
  ASSERT_TRUE(m) << m.error().to_string();
  const auto& load = m->instructions[3];
  EXPECT_EQ(load.callee, "asm");
  EXPECT_EQ(load.type, "{ i32, i32, i32, i32 }");
  EXPECT_EQ(load.inline_asm, "mov.u32 $0, 0x0;\n\t@$5 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];");
  EXPECT_EQ(load.dbg, 9);
  EXPECT_EQ(load.loc, (SourceLoc{"/tmp/ll/kernels.py", 8, 16}));
  const auto& store = m->instructions[10];
  EXPECT_EQ(store.callee, "asm");
  EXPECT_EQ(store.type, "void");
  EXPECT_TRUE(store.inline_asm.starts_with("@$5 st.global.v4.b32"));
}

TEST(LlvmIrParser, ResolvesDebugLocationsThroughScopes) {
  auto m = parse_llvm_ir(kLlir);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->debug_locations.size(), 6u);
  EXPECT_EQ(m->debug_locations.at(7), (SourceLoc{"/tmp/ll/kernels.py", 5, 24}));
  // Inlined: the innermost location, its file from the DILexicalBlockFile.
  EXPECT_EQ(m->debug_locations.at(10), (SourceLoc{"/site-packages/triton/language/standard.py", 170, 27}));
  EXPECT_EQ(m->instructions[7].loc, m->debug_locations.at(10));
}

TEST(LlvmIrParser, UndefinedDbgIsAnError) {
  std::string text = fixture("malformed/undefined_dbg.llir");
  ASSERT_FALSE(text.empty());
  auto m = parse_llvm_ir(text);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().stage, Stage::Llir);
  EXPECT_EQ(m.error().line, 7);
  EXPECT_NE(m.error().message.find("!9"), std::string::npos);
}

TEST(LlvmIrParser, UnterminatedFunctionIsAnError) {
  auto m = parse_llvm_ir("define void @k() {\n  ret void\n");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().line, 1);
}

TEST(LlvmIrFixtures, MatmulInlineAsmCarriesWgmmaAtTheDotLine) {
  auto m = parse_llvm_ir(fixture("triton-3.6.0/matmul/matmul_kernel.llir"));
  ASSERT_TRUE(m) << m.error().to_string();
  ASSERT_FALSE(m->functions.empty());
  EXPECT_EQ(m->functions[0].name, "matmul_kernel");
  EXPECT_TRUE(m->functions[0].is_definition);
  int dot = example_line("matmul.py", "tl.dot(");
  int wgmma = 0, cp_async = 0;
  for (const auto& i : m->instructions) {
    if (i.callee != "asm") continue;
    if (i.inline_asm.find("wgmma.mma_async") != std::string::npos) {
      ++wgmma;
      EXPECT_EQ(i.loc.line, dot);
      EXPECT_TRUE(i.loc.file.ends_with("matmul.py")) << i.loc.file;
    }
    if (i.inline_asm.find("cp.async.cg.shared.global") != std::string::npos) ++cp_async;
  }
  EXPECT_GT(wgmma, 0);
  EXPECT_GT(cp_async, 0);
}

TEST(LlvmIrFixtures, SoftmaxHasInlinedStandardLibraryLocations) {
  auto m = parse_llvm_ir(fixture("triton-3.6.0/softmax/softmax_kernel.llir"));
  ASSERT_TRUE(m) << m.error().to_string();
  bool from_standard = false;
  for (const auto& i : m->instructions) from_standard |= i.loc.file.ends_with("triton/language/standard.py");
  EXPECT_TRUE(from_standard);
}

TEST(LlvmIrFixtures, AllFixturesParse) {
  for (const char* rel : {"vector_add/add_kernel.llir", "softmax/softmax_kernel.llir", "matmul/matmul_kernel.llir",
                          "large_matmul/matmul_bias_gelu_kernel.llir"}) {
    auto m = parse_llvm_ir(fixture(std::string("triton-3.6.0/") + rel));
    ASSERT_TRUE(m) << rel << ": " << m.error().to_string();
    EXPECT_GT(m->instructions.size(), 10u) << rel;
    int with_loc = 0;
    for (const auto& i : m->instructions) {
      EXPECT_FALSE(i.opcode.empty()) << rel << ":" << i.line;
      with_loc += i.loc.known();
    }
    EXPECT_GT(with_loc, static_cast<int>(m->instructions.size()) / 2) << rel;
  }
}

}  // namespace
}  // namespace tdx

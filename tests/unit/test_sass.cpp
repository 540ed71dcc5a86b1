// SASS parser: nvdisasm -c -g and cuobjdump -sass listings, line info, access widths.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tritondx/ir/sass.h"

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

// Trimmed `nvdisasm -c -g -hex` output of a Triton 3.6.0 vector add (sm_90a).
constexpr std::string_view kNvdisasm = R"sass(	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
	.elftype	@"ET_EXEC"


//--------------------- .text.add_kernel          --------------------------
	.section	.text.add_kernel,"ax",@progbits
	.align	128
        .global         add_kernel
        .type           add_kernel,@function
add_kernel:
.text.add_kernel:
	//## File "/tmp/ll/kernels.py", line 4
        /*0000*/                   LDC R1, c[0x0][0x28] ;                        /* 0x00000a00ff017b82 */
                                                                                 /* 0x000e220000000800 */
	//## File "/tmp/ll/kernels.py", line 8
        /*0180*/              @!P0 LDG.E.128 R16, desc[UR4][R2.64] ;
        /*0190*/                   STG.E.U16 desc[UR16][R102.64], R51 ;
	//## File "/tmp/ll/helper.py", line 20 inlined at "/tmp/ll/kernels.py", line 9
        /*01a0*/                   LDS.U8 R3, [R2+0x10] ;
        /*01b0*/                   { FADD R4, R4, R5 ;
        /*01c0*/                     LDGSTS.E.BYPASS.128 [R43+0x1000], desc[UR16][R26.64], P6 }
        /*01d0*/                   HGMMA.64x128x16.F32 R24, gdesc[UR8].tnspB, R24 ;
.L_x_2:
        /*01e0*/                   BRA `(.L_x_2);
        /*01f0*/                   NOP;
)sass";

TEST(SassParser, ReadsNvdisasmListing) {
  auto m = parse_sass(kNvdisasm);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->arch, "sm_90a");
  EXPECT_EQ(m->functions, std::vector<std::string>{"add_kernel"});
  ASSERT_EQ(m->instructions.size(), 9u);
  const auto& ldc = m->instructions[0];
  EXPECT_EQ(ldc.offset, 0u);
  EXPECT_EQ(ldc.full_opcode(), "LDC");
  EXPECT_EQ(ldc.operands, (std::vector<std::string>{"R1", "c[0x0][0x28]"}));
  EXPECT_EQ(ldc.loc, (SourceLoc{"/tmp/ll/kernels.py", 4, 0}));
  EXPECT_EQ(ldc.line, 13);
  EXPECT_EQ(ldc.function, "add_kernel");
}

TEST(SassParser, SplitsPredicateOpcodeAndModifiers) {
  auto m = parse_sass(kNvdisasm);
  ASSERT_TRUE(m) << m.error().to_string();
  const auto& ldg = m->instructions[1];
  EXPECT_EQ(ldg.offset, 0x180u);
  EXPECT_EQ(ldg.predicate, "@!P0");
  EXPECT_EQ(ldg.opcode, "LDG");
  EXPECT_EQ(ldg.modifiers, (std::vector<std::string>{"E", "128"}));
  EXPECT_EQ(ldg.operands, (std::vector<std::string>{"R16", "desc[UR4][R2.64]"}));
  EXPECT_EQ(ldg.access_bits(), 128);
  EXPECT_EQ(ldg.loc.line, 8);
  EXPECT_EQ(m->instructions[2].access_bits(), 16);  // STG.E.U16
  EXPECT_EQ(m->instructions[3].access_bits(), 8);   // LDS.U8
}

TEST(SassParser, InlinedLineInfoKeepsInnermostAndBracesAreStripped) {
  auto m = parse_sass(kNvdisasm);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->instructions[3].loc, (SourceLoc{"/tmp/ll/helper.py", 20, 0}));
  const auto& fadd = m->instructions[4];
  EXPECT_EQ(fadd.full_opcode(), "FADD");
  EXPECT_EQ(fadd.operands.size(), 3u);
  const auto& ldgsts = m->instructions[5];
  EXPECT_EQ(ldgsts.full_opcode(), "LDGSTS.E.BYPASS.128");
  EXPECT_EQ(ldgsts.operands.size(), 3u);
  EXPECT_EQ(ldgsts.operands.back(), "P6");
  EXPECT_EQ(ldgsts.access_bits(), 128);
  const auto& hgmma = m->instructions[6];
  EXPECT_EQ(hgmma.opcode, "HGMMA");
  EXPECT_TRUE(hgmma.has_modifier("64x128x16"));
  EXPECT_EQ(hgmma.access_bits(), 0);  // not a memory op
  EXPECT_EQ(m->instructions[7].operands, std::vector<std::string>{"`(.L_x_2)"});
  EXPECT_EQ(m->instructions[8].opcode, "NOP");
}

TEST(SassParser, ReadsCuobjdumpListing) {
  constexpr std::string_view text = R"sass(
	code for sm_90a
		Function : add_kernel
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;                        /* 0x00000a00ff017b82 */
                                                                                 /* 0x000e220000000800 */
        /*0010*/                   LDG.E R2, desc[UR4][R2.64] ;                  /* 0x0000000000007919 */
                                                                                 /* 0x000e6e0000002100 */
        /*0020*/                   EXIT ;                                        /* 0x000000000000794d */
		..........
)sass";
  auto m = parse_sass(text);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->arch, "sm_90a");
  EXPECT_EQ(m->functions, std::vector<std::string>{"add_kernel"});
  ASSERT_EQ(m->instructions.size(), 3u);
  EXPECT_EQ(m->instructions[1].access_bits(), 32);
  EXPECT_EQ(m->instructions[1].offset, 0x10u);
  EXPECT_EQ(m->instructions[2].function, "add_kernel");
  EXPECT_FALSE(m->instructions[2].loc.known());
}

TEST(SassParser, InstructionWithoutOpcodeIsAnError) {
  std::string text = fixture("malformed/no_opcode.sass");
  ASSERT_FALSE(text.empty());
  auto m = parse_sass(text);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().stage, Stage::Sass);
  EXPECT_EQ(m.error().line, 7);
}

TEST(SassFixtures, MatmulHasHgmmaAndLdgstsAtTheirLines) {
  auto m = parse_sass(fixture("triton-3.6.0/matmul/matmul_kernel.sass"));
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->functions, std::vector<std::string>{"matmul_kernel"});
  EXPECT_EQ(m->arch, "sm_90a");
  int loop = example_line("matmul.py", "for k in range(");
  int dot = example_line("matmul.py", "tl.dot(");
  int hgmma = 0, ldgsts = 0;
  for (const auto& i : m->instructions) {
    if (i.opcode == "HGMMA") {
      ++hgmma;
      // ptxas's line table puts the HGMMAs inside the K loop, not always on the tl.dot line.
      EXPECT_GE(i.loc.line, loop);
      EXPECT_LE(i.loc.line, dot);
      EXPECT_TRUE(i.loc.file.ends_with("matmul.py")) << i.loc.file;
    }
    if (i.opcode == "LDGSTS") {
      ++ldgsts;
      EXPECT_EQ(i.access_bits(), 128);
    }
  }
  EXPECT_GT(hgmma, 0);
  EXPECT_GT(ldgsts, 0);
  // Offsets advance by 16 bytes per instruction.
  for (size_t k = 1; k < m->instructions.size(); ++k)
    ASSERT_EQ(m->instructions[k].offset, m->instructions[k - 1].offset + 16) << k;
}

TEST(SassFixtures, VectorAddGlobalLoadsAtTheLoadLine) {
  auto m = parse_sass(fixture("triton-3.6.0/vector_add/add_kernel.sass"));
  ASSERT_TRUE(m) << m.error().to_string();
  int load_x = example_line("vector_add.py", "x = tl.load(");
  int loads = 0;
  for (const auto& i : m->instructions)
    if (i.opcode == "LDG" && i.loc.line == load_x) ++loads;
  EXPECT_GT(loads, 0);
}

TEST(SassParser, BackwardBranchesAreLoopsByLabelOrOffset) {
  constexpr std::string_view text = R"sass(
	.text.k:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_1:
        /*0010*/                   IADD3 R0, R0, 0x1, RZ ;
        /*0020*/                   ISETP.GE.AND P0, PT, R0, 0x10, PT ;
        /*0030*/              @!P0 BRA `(.L_x_1) ;
        /*0040*/                   BRA `(.L_x_2) ;
.L_x_2:
        /*0050*/                   FADD R2, R2, 1 ;
        /*0060*/              @P1 BRA 0x50 ;
        /*0070*/                   EXIT ;
)sass";
  auto m = parse_sass(text);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->labels.at(".L_x_1"), 1);
  EXPECT_EQ(m->labels.at(".L_x_2"), 5);
  auto loops = sass_loops(*m);
  ASSERT_EQ(loops.size(), 2u);  // the forward BRA to .L_x_2 is no loop
  EXPECT_EQ(loops[0].first, 1);
  EXPECT_EQ(loops[0].last, 3);
  EXPECT_EQ(loops[1].first, 5);
  EXPECT_EQ(loops[1].last, 6);
}

TEST(SassFixtures, MatmulKLoopIsOneBackwardBranchAroundTheHgmmas) {
  auto m = parse_sass(fixture("triton-3.6.0/matmul/matmul_kernel.sass"));
  ASSERT_TRUE(m) << m.error().to_string();
  auto loops = sass_loops(*m);
  ASSERT_FALSE(loops.empty());
  int inside = 0, hgmma = 0;
  for (const auto& i : m->instructions) {
    if (i.opcode != "HGMMA") continue;
    ++hgmma;
    for (const auto& l : loops) inside += i.index >= l.first && i.index <= l.last ? 1 : 0;
  }
  EXPECT_GT(hgmma, 0);
  EXPECT_GT(inside, 0);  // the pipelined loop's HGMMAs; the epilogue's may sit outside
}

TEST(SassFixtures, AllFixturesParse) {
  for (const char* rel : {"vector_add/add_kernel.sass", "softmax/softmax_kernel.sass", "matmul/matmul_kernel.sass",
                          "large_matmul/matmul_bias_gelu_kernel.sass"}) {
    auto m = parse_sass(fixture(std::string("triton-3.6.0/") + rel));
    ASSERT_TRUE(m) << rel << ": " << m.error().to_string();
    EXPECT_GT(m->instructions.size(), 10u) << rel;
    ASSERT_EQ(m->functions.size(), 1u) << rel;
  }
}

}  // namespace
}  // namespace tdx

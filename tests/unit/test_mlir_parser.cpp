// TTIR/TTGIR parsing: real Triton 3.6.0 output for sm_90 (tests/fixtures/mlir/*.ttgir, compiled
// from tests/fixtures/mlir/README.md's kernels; the official triton-3.6.0/ fixtures when
// present), inline snippets for single forms, and malformed inputs whose expected error sits in
// their own first lines (tests/fixtures/mlir/malformed/).
// Longer than 500 lines because it covers every op form the parser reads, one test each.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tritondx/ir/mlir.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;
using Ints = std::vector<int64_t>;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path mlir_fixture(std::string_view name) { return fs::path(TRITONDX_FIXTURES_DIR) / "mlir" / name; }

MlirModule parse_ok(std::string_view text, Stage stage = Stage::Ttgir) {
  auto m = parse_mlir(text, stage);
  EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().to_string());
  return m ? std::move(*m) : MlirModule{};
}

MlirModule parse_fixture(std::string_view name) { return parse_ok(read_file(mlir_fixture(name))); }

// The n-th op (0-based) with this name, or nullptr.
const MlirOp* find_op(const MlirModule& m, std::string_view name, int nth = 0) {
  for (const MlirOp& op : m.ops)
    if (op.name == name && nth-- == 0) return &op;
  return nullptr;
}

std::vector<std::string> type_texts(const std::vector<MlirType>& types) {
  std::vector<std::string> out;
  for (const MlirType& t : types) out.push_back(t.text);
  return out;
}

// ---- types

TEST(MlirType, TensorOfPointers) {
  auto t = parse_mlir_type("tensor<1024x!tt.ptr<f32>, #blocked>");
  ASSERT_TRUE(t.has_value());
  EXPECT_TRUE(t->is_tensor);
  EXPECT_EQ(t->shape, Ints{1024});
  EXPECT_EQ(t->element, "!tt.ptr<f32>");
  EXPECT_EQ(t->encoding, "#blocked");
  EXPECT_TRUE(t->is_pointer);
  EXPECT_EQ(t->pointee, "f32");
  EXPECT_EQ(t->element_bits(), 64);
  EXPECT_EQ(t->num_elements(), 1024);
  MlirType loaded = t->with_element(t->pointee);
  EXPECT_EQ(loaded.text, "tensor<1024xf32, #blocked>");
  EXPECT_FALSE(loaded.is_pointer);
  EXPECT_EQ(loaded.element_bits(), 32);
}

TEST(MlirType, InlineSliceEncoding) {
  auto t = parse_mlir_type("tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>>");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->shape, Ints{128});
  EXPECT_EQ(t->element, "i32");
  EXPECT_EQ(t->encoding, "#ttg.slice<{dim = 1, parent = #blocked}>");
}

TEST(MlirType, MemdescAndShortMemdesc) {
  auto t = parse_mlir_type("!ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>");
  ASSERT_TRUE(t.has_value());
  EXPECT_FALSE(t->is_tensor);
  EXPECT_EQ(t->shape, (Ints{3, 128, 64}));
  EXPECT_EQ(t->element, "f16");
  EXPECT_EQ(t->encoding, "#shared");
  EXPECT_EQ(t->num_elements(), 3 * 128 * 64);
  // ttg.async_copy_global_to_local prints its destination without the prefix.
  auto s = parse_mlir_type("<64x32xf16, #shared, #smem, mutable>");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->text, "!ttg.memdesc<64x32xf16, #shared, #smem, mutable>");
  EXPECT_EQ(s->shape, (Ints{64, 32}));
}

// tt.make_tensor_ptr and tt.advance print their block pointer without `!tt.ptr`: `<tensor<...>>` is
// a pointer to that tensor, not a memdesc.
TEST(MlirType, ShortBlockPointer) {
  auto p = parse_mlir_type("<tensor<128x64xf16>>");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->text, "!tt.ptr<tensor<128x64xf16>>");
  EXPECT_TRUE(p->is_pointer);
  EXPECT_FALSE(p->is_tensor);
  EXPECT_EQ(p->pointee, "tensor<128x64xf16>");
}

TEST(MlirType, TensorDescriptorAndScalars) {
  auto d = parse_mlir_type("!tt.tensordesc<tensor<64x128xf16, #shared1>>");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->shape, (Ints{64, 128}));
  EXPECT_EQ(d->element, "f16");
  EXPECT_EQ(d->encoding, "#shared1");
  auto p = parse_mlir_type("!tt.ptr<f16>");
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(p->is_pointer);
  EXPECT_EQ(p->pointee, "f16");
  EXPECT_EQ(p->num_elements(), 1);
  EXPECT_EQ(p->with_element(p->pointee).text, "f16");
  auto block_ptr = parse_mlir_type("!tt.ptr<tensor<128x64xbf16>, 1>");
  ASSERT_TRUE(block_ptr.has_value());
  EXPECT_EQ(block_ptr->pointee, "tensor<128x64xbf16>");
  EXPECT_TRUE(block_ptr->with_element(block_ptr->pointee).is_tensor);
  EXPECT_FALSE(parse_mlir_type("tensor<4xf32").has_value());
  EXPECT_FALSE(parse_mlir_type("").has_value());
}

TEST(MlirType, ElementBits) {
  auto bits = [](std::string_view text) { return parse_mlir_type(text)->element_bits(); };
  EXPECT_EQ(bits("f16"), 16);
  EXPECT_EQ(bits("bf16"), 16);
  EXPECT_EQ(bits("tensor<16xf32>"), 32);
  EXPECT_EQ(bits("f64"), 64);
  EXPECT_EQ(bits("i1"), 1);
  EXPECT_EQ(bits("i8"), 8);
  EXPECT_EQ(bits("i16"), 16);
  EXPECT_EQ(bits("i32"), 32);
  EXPECT_EQ(bits("i64"), 64);
  EXPECT_EQ(bits("tensor<128xf8E4M3FN, #blocked>"), 8);
  EXPECT_EQ(bits("f8E5M2"), 8);
  EXPECT_EQ(bits("!ttg.async.token"), 0);
}

// ---- vector add: layouts, module attributes, functions, locations

TEST(MlirParser, VectorAddTtgir) {
  constexpr std::string_view kText = R"(#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#loc = loc("/src/add.py":4:0)
#loc15 = loc("x_ptr"(#loc))
#loc18 = loc("n"(#loc))
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("x_ptr"(#loc)), %n: i32 loc("n"(#loc))) attributes {noinline = false} {
    %c1024_i32 = arith.constant 1024 : i32 loc(#loc1)
    %pid = tt.get_program_id x : i32 loc(#loc19)
    %offs = arith.muli %pid, %c1024_i32 : i32 loc(#loc20)
    %offs_0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked> loc(#loc21)
    %offs_1 = tt.splat %offs : i32 -> tensor<1024xi32, #blocked> loc(#loc22)
    %offs_2 = arith.addi %offs_1, %offs_0 : tensor<1024xi32, #blocked> loc(#loc22)
    %mask = tt.splat %n : i32 -> tensor<1024xi32, #blocked> loc(#loc23)
    %mask_3 = arith.cmpi slt, %offs_2, %mask : tensor<1024xi32, #blocked> loc(#loc23)
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc24)
    %x_4 = tt.addptr %x, %offs_2 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked> loc(#loc24)
    %x_5 = tt.load %x_4, %mask_3 : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc25)
    tt.store %x_4, %x_5, %mask_3 : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc13)
    tt.return loc(#loc14)
  } loc(#loc)
} loc(#loc)
#loc1 = loc(unknown)
#loc2 = loc("/src/add.py":5:24)
#loc3 = loc("/src/add.py":6:17)
#loc4 = loc("/src/add.py":6:38)
#loc5 = loc("/src/add.py":6:25)
#loc6 = loc("/src/add.py":7:18)
#loc7 = loc("/src/add.py":8:24)
#loc8 = loc("/src/add.py":8:16)
#loc13 = loc("/src/add.py":10:29)
#loc14 = loc("/src/add.py":10:4)
#loc19 = loc("pid"(#loc2))
#loc20 = loc("offs"(#loc3))
#loc21 = loc("offs"(#loc4))
#loc22 = loc("offs"(#loc5))
#loc23 = loc("mask"(#loc6))
#loc24 = loc("x"(#loc7))
#loc25 = loc("x"(#loc8))
)";
  MlirModule m = parse_ok(kText);
  EXPECT_EQ(m.stage, Stage::Ttgir);

  const Layout* blocked = m.layout("#blocked");
  ASSERT_NE(blocked, nullptr);
  EXPECT_EQ(blocked->kind, LayoutKind::Blocked);
  EXPECT_EQ(blocked->size_per_thread, Ints{4});
  EXPECT_EQ(blocked->threads_per_warp, Ints{32});
  EXPECT_EQ(blocked->warps_per_cta, Ints{4});
  EXPECT_EQ(blocked->order, Ints{0});

  EXPECT_EQ(m.num_warps(), 4);
  EXPECT_EQ(m.threads_per_warp(), 32);
  EXPECT_EQ(m.target(), "cuda:90");
  EXPECT_FALSE(m.shared_bytes().has_value());

  ASSERT_EQ(m.functions.size(), 1u);
  const MlirFunction& fn = m.functions[0];
  EXPECT_EQ(fn.name, "add_kernel");
  EXPECT_TRUE(fn.is_public);
  EXPECT_EQ(fn.line, 6);
  ASSERT_EQ(fn.arguments.size(), 2u);
  EXPECT_EQ(fn.arguments[0].name, "%x_ptr");
  EXPECT_EQ(fn.arguments[0].type.text, "!tt.ptr<f32>");
  EXPECT_EQ(fn.arguments[0].int_attribute("tt.divisibility"), 16);
  EXPECT_EQ(fn.arguments[1].type.element, "i32");
  EXPECT_FALSE(fn.arguments[1].int_attribute("tt.divisibility").has_value());
  EXPECT_EQ(m.ops[fn.op].name, "tt.func");
  EXPECT_EQ(m.ops[fn.op].attribute("noinline")->value, "false");
  EXPECT_EQ(fn.first_op, fn.op + 1);
  EXPECT_EQ(fn.end_op, static_cast<int>(m.ops.size()));

  const MlirOp* load = find_op(m, "tt.load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->line, 17);
  EXPECT_EQ(load->results, std::vector<std::string>{"%x_5"});
  EXPECT_EQ(load->result_count, 1);
  EXPECT_EQ(load->operands, (std::vector<std::string>{"%x_4", "%mask_3"}));
  EXPECT_EQ(type_texts(load->operand_types),
            (std::vector<std::string>{"tensor<1024x!tt.ptr<f32>, #blocked>", "tensor<1024xi1, #blocked>"}));
  EXPECT_EQ(type_texts(load->result_types), std::vector<std::string>{"tensor<1024xf32, #blocked>"});
  EXPECT_EQ(load->loc_ref, "#loc25");
  EXPECT_EQ(load->loc, (SourceLoc{"/src/add.py", 8, 16}));
  EXPECT_FALSE(load->call_site.known());
  EXPECT_EQ(load->loc_name, "x");
  EXPECT_EQ(load->parent, fn.op);
  EXPECT_EQ(load->depth, 1);
  EXPECT_EQ(load->text, "%x_5 = tt.load %x_4, %mask_3 : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc25)");
  EXPECT_EQ(m.defining_op("%x_5"), load);
  EXPECT_EQ(m.defining_op("%nope"), nullptr);

  const MlirOp* store = find_op(m, "tt.store");
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->results.empty());
  EXPECT_EQ(store->operands.size(), 3u);
  EXPECT_EQ(type_texts(store->operand_types),
            (std::vector<std::string>{"tensor<1024x!tt.ptr<f32>, #blocked>", "tensor<1024xf32, #blocked>",
                                      "tensor<1024xi1, #blocked>"}));

  const MlirOp* splat = find_op(m, "tt.splat", 2);  // %x = tt.splat %x_ptr
  ASSERT_NE(splat, nullptr);
  EXPECT_EQ(type_texts(splat->operand_types), std::vector<std::string>{"!tt.ptr<f32>"});
  EXPECT_EQ(type_texts(splat->result_types), std::vector<std::string>{"tensor<1024x!tt.ptr<f32>, #blocked>"});

  const MlirOp* cmp = find_op(m, "arith.cmpi");
  ASSERT_NE(cmp, nullptr);
  EXPECT_EQ(cmp->attribute("predicate")->value, "slt");
  EXPECT_EQ(cmp->operand_types.size(), 2u);
  EXPECT_EQ(type_texts(cmp->result_types), std::vector<std::string>{"tensor<1024xi1, #blocked>"});

  const MlirOp* add = find_op(m, "arith.addi");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->operand_types.size(), 2u);
  EXPECT_EQ(add->result_types[0].shape, Ints{1024});

  EXPECT_EQ(find_op(m, "tt.get_program_id")->attribute("axis")->value, "x");
  EXPECT_EQ(find_op(m, "tt.make_range")->int_attribute("end"), 1024);
  EXPECT_EQ(find_op(m, "arith.constant")->int_attribute("value"), 1024);
  EXPECT_FALSE(find_op(m, "arith.constant")->loc.known());  // loc(unknown)

  EXPECT_EQ(m.locs.at("#loc2"), (SourceLoc{"/src/add.py", 5, 24}));
  EXPECT_EQ(m.locs.at("#loc19"), (SourceLoc{"/src/add.py", 5, 24}));
  EXPECT_EQ(m.loc_names.at("#loc19"), "pid");
  EXPECT_FALSE(m.locs.at("#loc1").known());
}

// ---- regions

TEST(MlirParser, SoftmaxReduceRegionsAndCallsiteLocs) {
  MlirModule m = parse_fixture("softmax_reduce.ttgir");
  const MlirOp* reduce = find_op(m, "tt.reduce");
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(reduce->line, 27);
  EXPECT_EQ(reduce->results, std::vector<std::string>{"%x_5"});
  EXPECT_EQ(reduce->operands, std::vector<std::string>{"%x_4"});
  EXPECT_EQ(reduce->int_attribute("axis"), 0);
  // Generic form: the types and the location are on the closing `}) : (...) -> f32 loc(#loc39)`.
  EXPECT_EQ(type_texts(reduce->operand_types), std::vector<std::string>{"tensor<1024xf32, #blocked>"});
  EXPECT_EQ(type_texts(reduce->result_types), std::vector<std::string>{"f32"});
  EXPECT_EQ(reduce->loc_ref, "#loc39");
  // #loc39 = callsite(#loc9 at #loc35): standard.py's max, called from the kernel's line 18.
  EXPECT_EQ(reduce->loc, (SourceLoc{"/triton/language/standard.py", 191, 40}));
  EXPECT_EQ(reduce->call_site, (SourceLoc{"/src/kernels.py", 18, 19}));
  EXPECT_EQ(reduce->loc_name, "x");

  const MlirOp* combine = find_op(m, "arith.maxnumf");
  ASSERT_NE(combine, nullptr);
  EXPECT_EQ(combine->parent, reduce->index);
  EXPECT_EQ(combine->depth, reduce->depth + 1);
  EXPECT_EQ(combine->operands, (std::vector<std::string>{"%x_8", "%x_9"}));
  // Nested callsite (#loc43 = callsite(#loc11 at #loc39)): the outermost caller is the kernel.
  EXPECT_EQ(combine->loc, (SourceLoc{"/triton/language/standard.py", 170, 27}));
  EXPECT_EQ(combine->call_site, (SourceLoc{"/src/kernels.py", 18, 19}));
  const MlirOp* ret = find_op(m, "tt.reduce.return");
  ASSERT_NE(ret, nullptr);
  EXPECT_EQ(ret->parent, reduce->index);

  const MlirOp* after = find_op(m, "tt.splat", 2);  // %x_6 = tt.splat %x_5, back at depth 1
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->depth, 1);
  EXPECT_EQ(after->parent, m.functions[0].op);
  EXPECT_EQ(m.defining_op("%x_5"), reduce);
  EXPECT_EQ(find_op(m, "tt.reduce", 1)->loc_name, "den");
}

TEST(MlirParser, PipelinedMatmulLoop) {
  MlirModule m = parse_fixture("pipelined_matmul.ttgir");
  const Layout* mma = m.layout("#mma");
  ASSERT_NE(mma, nullptr);
  EXPECT_EQ(mma->kind, LayoutKind::NvidiaMma);
  EXPECT_EQ(mma->version_major, 3);
  EXPECT_EQ(mma->instr_shape, (Ints{16, 128, 16}));
  EXPECT_EQ(m.layout("#shared")->kind, LayoutKind::NvmmaShared);
  EXPECT_EQ(m.layout("#shared")->swizzling_byte_width, 128);
  EXPECT_EQ(m.layout("#smem")->kind, LayoutKind::Other);
  const Layout* slice = m.layout("#ttg.slice<{dim = 1, parent = #blocked}>");  // inline encoding
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->slice_dim, 1);

  const MlirOp* loop = find_op(m, "scf.for");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->results, std::vector<std::string>{"%acc_50"});
  EXPECT_EQ(loop->result_count, 9);
  ASSERT_EQ(loop->result_types.size(), 9u);
  EXPECT_EQ(loop->result_types[0].text, "tensor<128x128xf32, #mma>");
  // lower bound, upper bound, step, then the 9 iter_args inits
  EXPECT_EQ(loop->operands.size(), 12u);
  EXPECT_EQ(loop->operands[1], "%K");
  EXPECT_EQ(loop->operand_types.size(), 12u);
  // Loop attributes come from the closing `} {tt.num_stages = 3 : i32} loc(#loc67)`.
  EXPECT_EQ(loop->int_attribute("tt.num_stages"), 3);
  EXPECT_EQ(loop->loc_ref, "#loc67");
  EXPECT_EQ(loop->loc.line, 14);
  EXPECT_EQ(loop->loc_name, "acc");

  int copies_inside = 0, copies_before = 0;
  for (const MlirOp& op : m.ops) {
    if (op.name != "ttg.async_copy_global_to_local") continue;
    (op.parent == loop->index ? copies_inside : copies_before)++;
    if (op.parent == loop->index) {
      EXPECT_EQ(op.depth, loop->depth + 1);
    }
    EXPECT_EQ(type_texts(op.result_types), std::vector<std::string>{"!ttg.async.token"});
    ASSERT_EQ(op.operand_types.size(), 2u);
    EXPECT_EQ(op.operand_types[1].encoding, "#shared");
    EXPECT_EQ(op.int_attribute("contiguity"), 8);
  }
  EXPECT_EQ(copies_inside, 2);
  EXPECT_EQ(copies_before, 4);

  const MlirOp* dot = find_op(m, "ttng.warp_group_dot");
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->parent, loop->index);
  EXPECT_EQ(type_texts(dot->operand_types),
            (std::vector<std::string>{"!ttg.memdesc<128x64xf16, #shared, #smem, mutable>",
                                      "!ttg.memdesc<64x128xf16, #shared, #smem, mutable>",
                                      "tensor<128x128xf32, #mma>"}));
  EXPECT_EQ(type_texts(dot->result_types), std::vector<std::string>{"tensor<128x128xf32, #mma>"});
  EXPECT_EQ(dot->attribute("isAsync")->value, "true");
  const MlirOp* wait = find_op(m, "ttng.warp_group_dot_wait");
  EXPECT_EQ(wait->result_count, 3);
  EXPECT_EQ(wait->result_types.size(), 3u);
  const MlirOp* alloc = find_op(m, "ttg.local_alloc");
  EXPECT_EQ(alloc->result_types[0].shape, (Ints{3, 128, 64}));
  EXPECT_EQ(find_op(m, "scf.yield")->operands[0], "%acc_70#0");
  EXPECT_EQ(m.defining_op("%acc_70#0")->name, "ttng.warp_group_dot_wait");
  const MlirOp* after_loop = find_op(m, "ttng.warp_group_dot_wait", 1);
  EXPECT_EQ(after_loop->operands, std::vector<std::string>{"%acc_50#0"});
  EXPECT_EQ(after_loop->depth, loop->depth);
}

TEST(MlirParser, WhileAndIfElse) {
  MlirModule m = parse_fixture("while_if.ttgir");
  const MlirOp* loop = find_op(m, "scf.while");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->operands, std::vector<std::string>{"%c0_i32"});
  EXPECT_EQ(type_texts(loop->result_types), std::vector<std::string>{"i32"});
  EXPECT_EQ(loop->loc.line, 66);  // from `} loc(#loc15)` after the `do` region
  EXPECT_EQ(loop->loc_name, "i");
  // Both regions (before `} do {` and after it) belong to the while.
  EXPECT_EQ(find_op(m, "scf.condition")->parent, loop->index);
  const MlirOp* load = find_op(m, "tt.load");
  EXPECT_EQ(load->parent, loop->index);
  EXPECT_EQ(type_texts(load->result_types), std::vector<std::string>{"f32"});
  const MlirOp* branch = find_op(m, "scf.if");
  EXPECT_EQ(branch->parent, loop->index);
  EXPECT_EQ(find_op(m, "tt.store")->parent, branch->index);
  EXPECT_EQ(find_op(m, "tt.store")->depth, 3);
  EXPECT_EQ(find_op(m, "scf.yield")->parent, loop->index);
  EXPECT_EQ(find_op(m, "tt.return")->depth, 1);

  MlirModule misc = parse_fixture("misc_ops.ttgir");
  const MlirOp* if_else = find_op(misc, "scf.if");
  EXPECT_EQ(find_op(misc, "tt.store", 1)->parent, if_else->index);  // then
  EXPECT_EQ(find_op(misc, "tt.store", 2)->parent, if_else->index);  // else
  EXPECT_EQ(find_op(misc, "tt.return")->parent, misc.functions[0].op);
}

TEST(MlirParser, WarpSpecializePartitions) {
  MlirModule m = parse_fixture("warp_specialize.ttgir");
  const MlirOp* ws = find_op(m, "ttg.warp_specialize");
  ASSERT_NE(ws, nullptr);
  EXPECT_EQ(ws->operands.size(), 13u);
  EXPECT_EQ(ws->attribute("requestedRegisters")->value, "array<i32: 232, 232>");
  EXPECT_EQ(ws->operand_types.size(), 13u);  // from the closing `} : (...) -> ()`
  EXPECT_EQ(ws->loc_ref, "#loc1");
  int loops = 0;
  for (const MlirOp& op : m.ops)
    if (op.name == "scf.for") {
      EXPECT_EQ(op.parent, ws->index);
      EXPECT_EQ(op.int_attribute("tt.num_stages"), 0);
      ++loops;
    }
  EXPECT_EQ(loops, 3);  // default region and two partitions
  EXPECT_EQ(find_op(m, "ttg.warp_yield")->parent, ws->index);
  EXPECT_EQ(find_op(m, "ttg.warp_return", 1)->parent, ws->index);
  EXPECT_EQ(find_op(m, "tt.return")->depth, 1);
  const MlirOp* tma = find_op(m, "ttng.async_tma_copy_global_to_local");
  ASSERT_NE(tma, nullptr);
  EXPECT_EQ(tma->operand_types[0].text, "!tt.tensordesc<tensor<64x64xf16, #shared1>>");
  EXPECT_EQ(find_op(m, "ttng.reinterpret_tensor_descriptor")->result_types[0].shape, (Ints{64, 64}));
}

TEST(MlirParser, InlinedHelperCallsite) {
  MlirModule m = parse_fixture("inlined_helper.ttgir");
  // helper(x) = x * 2 + 1 at kernels.py:46, inlined into the kernel's line 53.
  const MlirOp* mul = find_op(m, "arith.mulf");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->loc, (SourceLoc{"/src/kernels.py", 46, 15}));
  EXPECT_EQ(mul->call_site, (SourceLoc{"/src/kernels.py", 53, 36}));
  EXPECT_EQ(find_op(m, "arith.addf")->loc.col, 19);
}

TEST(MlirParser, FmaDotWithDotOperandLayouts) {
  MlirModule m = parse_fixture("dot_fp32_ieee.ttgir");
  const MlirOp* dot = find_op(m, "tt.dot");
  ASSERT_NE(dot, nullptr);
  ASSERT_EQ(dot->operand_types.size(), 3u);
  const Layout* a = m.layout(dot->operand_types[0].encoding);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->kind, LayoutKind::DotOperand);
  EXPECT_EQ(a->op_idx, 0);
  EXPECT_EQ(a->parent, "#blocked2");
  EXPECT_EQ(m.layout(a->parent)->size_per_thread, (Ints{4, 4}));
  EXPECT_EQ(m.layout("#shared")->kind, LayoutKind::SwizzledShared);
  EXPECT_EQ(dot->operand_types[2].encoding, "#blocked2");  // the accumulator
  EXPECT_EQ(dot->attribute("inputPrecision"), nullptr);     // ieee is the default, not printed

  // TTIR of a tf32 dot prints its precision inline.
  MlirModule ttir = parse_ok(R"(module {
  tt.func @k(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<128x128xf32>) {
    %acc = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32> loc("/k.py":9:15)
    tt.return
  }
})", Stage::Ttir);
  const MlirOp* tf32 = find_op(ttir, "tt.dot");
  ASSERT_NE(tf32, nullptr);
  EXPECT_EQ(tf32->attribute("inputPrecision")->value, "tf32");
  EXPECT_EQ(tf32->operands, (std::vector<std::string>{"%a", "%b", "%c"}));
  EXPECT_EQ(tf32->result_types[0].shape, (Ints{128, 128}));
}

TEST(MlirParser, InlineAttributesAndCalls) {
  MlirModule m = parse_fixture("misc_ops.ttgir");
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.functions[1].name, "kernels3.noinl__i32__");
  EXPECT_FALSE(m.functions[1].is_public);
  EXPECT_EQ(type_texts(m.ops[m.functions[1].op].result_types), std::vector<std::string>{"i32"});
  EXPECT_EQ(find_op(m, "tt.load")->attribute("evictionPolicy")->value, "evict_last");
  EXPECT_EQ(find_op(m, "tt.store")->attribute("cacheModifier")->value, "cs");
  EXPECT_EQ(find_op(m, "tt.fp_to_fp")->attribute("rounding")->value, "rtne");
  EXPECT_EQ(find_op(m, "tt.fp_to_fp")->result_types[0].element_bits(), 8);
  const MlirOp* rmw = find_op(m, "tt.atomic_rmw");
  EXPECT_EQ(rmw->attribute("atomic_rmw_op")->value, "fadd");
  EXPECT_EQ(rmw->attribute("sem")->value, "acq_rel");
  EXPECT_EQ(rmw->operand_types.size(), 3u);
  const MlirOp* call = find_op(m, "tt.call");
  EXPECT_EQ(call->operands, std::vector<std::string>{"%n"});
  EXPECT_EQ(type_texts(call->result_types), std::vector<std::string>{"i32"});
  EXPECT_EQ(find_op(m, "arith.extsi")->result_types[0].text, "i64");
}

// ---- single forms

TEST(MlirParser, UnknownOpsAndStringsWithBraces) {
  constexpr std::string_view kText = R"(module {
  tt.func @k(%a: i32, %b: i32) {
    %0 = foo.bar %a, %b {msg = "x{y}, z", n = 3 : i32} : (i32, i32) -> i32 loc("/k.py":3:5)
    %1:2 = "foo.generic"(%0, %a) <{label = "a,}b"}> : (i32, i32) -> (i32, f32) loc(fused["/k.py":4:1, "/k.py":4:9])
    tt.print " value: {" {hex = false, isSigned = array<i32: 1>} : %1#0 : i32 loc(unknown)
    tt.return loc("ret"("/k.py":5:2))
  }
}
{-#
  dialect_resources: {
    builtin: { blob: "0x04" }
  }
#-}
)";
  MlirModule m = parse_ok(kText);
  ASSERT_EQ(m.ops.size(), 5u);
  const MlirOp& bar = m.ops[1];
  EXPECT_EQ(bar.name, "foo.bar");
  EXPECT_EQ(bar.operands, (std::vector<std::string>{"%a", "%b"}));
  EXPECT_EQ(bar.attribute("msg")->value, "\"x{y}, z\"");
  EXPECT_EQ(bar.int_attribute("n"), 3);
  EXPECT_EQ(bar.operand_types.size(), 2u);
  EXPECT_EQ(bar.loc, (SourceLoc{"/k.py", 3, 5}));
  EXPECT_EQ(bar.loc_ref, "\"/k.py\":3:5");
  const MlirOp& generic = m.ops[2];
  EXPECT_EQ(generic.name, "foo.generic");
  EXPECT_EQ(generic.result_count, 2);
  EXPECT_EQ(generic.attribute("label")->value, "\"a,}b\"");
  EXPECT_EQ(type_texts(generic.result_types), (std::vector<std::string>{"i32", "f32"}));
  EXPECT_EQ(generic.loc, (SourceLoc{"/k.py", 4, 1}));  // fused: first known location
  const MlirOp& print = m.ops[3];
  EXPECT_EQ(print.operands, std::vector<std::string>{"%1#0"});
  EXPECT_FALSE(print.loc.known());
  EXPECT_EQ(m.ops[4].loc_name, "ret");
  EXPECT_EQ(m.ops[4].loc.line, 5);
  EXPECT_EQ(m.ops[0].depth, 0);
  EXPECT_EQ(m.ops[4].parent, 0);
}

TEST(MlirParser, OpContinuedOverLines) {
  constexpr std::string_view kText = R"(module {
  llvm.func @k(%arg0: i32) {
    llvm.switch %arg0 : i32, ^bb1 [
      0: ^bb2,
      1: ^bb3
    ]
  ^bb1:
    llvm.return
  }
}
)";
  MlirModule m = parse_ok(kText, Stage::Ttgir);
  ASSERT_EQ(m.ops.size(), 3u);
  EXPECT_EQ(m.ops[1].name, "llvm.switch");
  EXPECT_EQ(m.ops[1].line, 3);
  EXPECT_EQ(m.ops[2].name, "llvm.return");
  EXPECT_EQ(m.ops[2].line, 8);
  EXPECT_EQ(m.functions[0].name, "k");
}

TEST(MlirParser, LightOptionsSkipTypesAndText) {
  MlirParseOptions options;
  options.types = false;
  options.op_text = false;
  auto m = parse_mlir(read_file(mlir_fixture("softmax_reduce.ttgir")), Stage::Ttgir, options);
  ASSERT_TRUE(m.has_value());
  const MlirOp* load = find_op(*m, "tt.load");
  ASSERT_NE(load, nullptr);
  EXPECT_TRUE(load->result_types.empty());
  EXPECT_TRUE(load->text.empty());
  EXPECT_EQ(load->operands.size(), 3u);
  EXPECT_EQ(load->loc.line, 17);
}

// ---- malformed input: each fixture names its expected line and message in its first lines

TEST(MlirMalformed, FixturesReportStageAndLine) {
  const fs::path dir = mlir_fixture("malformed");
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string text = read_file(entry.path());
    int expected_line = 0;
    std::string expected_message;
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l) && l.starts_with("//");) {
      if (l.starts_with("// EXPECT-ERROR-LINE: ")) expected_line = std::stoi(l.substr(22));
      if (l.starts_with("// EXPECT-ERROR: ")) expected_message = l.substr(17);
    }
    SCOPED_TRACE(entry.path().filename().string());
    ASSERT_GT(expected_line, 0);
    auto m = parse_mlir(text, Stage::Ttir);
    ASSERT_FALSE(m.has_value());
    EXPECT_EQ(m.error().stage, Stage::Ttir);
    EXPECT_EQ(m.error().line, expected_line) << m.error().to_string();
    EXPECT_NE(m.error().message.find(expected_message), std::string::npos) << m.error().to_string();
    ++cases;
  }
  EXPECT_GE(cases, 10);
}

// ---- the official fixtures (tools/gen_fixtures.py), when generated

fs::path official(std::string_view example, std::string_view file) {
  return fs::path(TRITONDX_FIXTURES_DIR) / "triton-3.6.0" / example / file;
}

// 1-based line of the first source line containing `needle`.
int source_line(const std::string& path, std::string_view needle) {
  std::ifstream in(path);
  int n = 0;
  for (std::string l; std::getline(in, l);) {
    ++n;
    if (l.find(needle) != std::string::npos) return n;
  }
  return 0;
}

TEST(MlirFixtures, VectorAdd) {
  fs::path ttgir = official("vector_add", "add_kernel.ttgir");
  if (!fs::exists(ttgir)) GTEST_SKIP() << "no " << ttgir;
  MlirModule m = parse_ok(read_file(ttgir));
  const Layout* blocked = m.layout("#blocked");
  ASSERT_NE(blocked, nullptr);
  EXPECT_EQ(blocked->size_per_thread, Ints{4});
  EXPECT_EQ(blocked->threads_per_warp, Ints{32});
  EXPECT_EQ(blocked->warps_per_cta, Ints{4});
  EXPECT_EQ(blocked->order, Ints{0});
  const MlirOp* load = find_op(m, "tt.load");
  ASSERT_NE(load, nullptr);
  EXPECT_TRUE(load->loc.file.ends_with("vector_add.py"));
  if (fs::exists(load->loc.file)) {
    EXPECT_EQ(load->loc.line, source_line(load->loc.file, "tl.load(x_ptr"));
  }
  EXPECT_EQ(load->result_types[0].encoding, "#blocked");
  EXPECT_EQ(m.functions[0].arguments[0].int_attribute("tt.divisibility"), 16);
  MlirModule ttir = parse_ok(read_file(official("vector_add", "add_kernel.ttir")), Stage::Ttir);
  EXPECT_EQ(find_op(ttir, "tt.load")->result_types[0].encoding, "");
  EXPECT_EQ(find_op(ttir, "tt.load")->loc, load->loc);
}

TEST(MlirFixtures, MatmulNestsLoadsInTheLoop) {
  fs::path ttgir = official("matmul", "matmul_kernel.ttgir");
  if (!fs::exists(ttgir)) GTEST_SKIP() << "no " << ttgir;
  MlirModule m = parse_ok(read_file(ttgir));
  bool wgmma = false;
  for (const auto& [alias, l] : m.layouts) wgmma |= l.kind == LayoutKind::NvidiaMma && l.version_major == 3;
  EXPECT_TRUE(wgmma);
  const MlirOp* loop = find_op(m, "scf.for");
  ASSERT_NE(loop, nullptr);
  int nested = 0;
  for (const MlirOp& op : m.ops)
    if (op.parent == loop->index) {
      EXPECT_EQ(op.depth, loop->depth + 1);
      nested += op.name == "ttg.async_copy_global_to_local" || op.name == "ttng.warp_group_dot";
    }
  EXPECT_GE(nested, 3);
  if (fs::exists(loop->loc.file)) {
    EXPECT_EQ(loop->loc.line, source_line(loop->loc.file, "for k in range"));
  }
  MlirModule ttir = parse_ok(read_file(official("matmul", "matmul_kernel.ttir")), Stage::Ttir);
  const MlirOp* ttir_loop = find_op(ttir, "scf.for");
  ASSERT_NE(ttir_loop, nullptr);
  int loads = 0;
  for (const MlirOp& op : ttir.ops) loads += op.name == "tt.load" && op.parent == ttir_loop->index;
  EXPECT_EQ(loads, 2);
}

TEST(MlirFixtures, EveryStageAndPassSnapshotParses) {
  const fs::path root = fs::path(TRITONDX_FIXTURES_DIR) / "triton-3.6.0";
  if (!fs::exists(root)) GTEST_SKIP() << "no " << root;
  int modules = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const fs::path& p = entry.path();
    const std::string ext = p.extension().string();
    if (ext == ".ttir" || ext == ".ttgir") {
      SCOPED_TRACE(p.string());
      auto m = parse_mlir(read_file(p), ext == ".ttir" ? Stage::Ttir : Stage::Ttgir);
      ASSERT_TRUE(m.has_value()) << m.error().to_string();
      EXPECT_FALSE(m->functions.empty());
      ++modules;
    } else if (p.filename().string().ends_with(".passes.txt")) {
      const std::string text = read_file(p);
      std::string_view all = text;
      constexpr std::string_view kHeader = "// -----// IR Dump";
      for (size_t at = all.find(kHeader); at != std::string_view::npos;) {
        size_t body = all.find('\n', at);
        size_t next = all.find(kHeader, body);
        std::string_view ir = all.substr(body + 1, (next == std::string_view::npos ? all.size() : next) - body - 1);
        auto m = parse_mlir(ir, Stage::PassDump);
        ASSERT_TRUE(m.has_value()) << p << ": " << all.substr(at, 120) << ": " << m.error().to_string();
        ++modules;
        at = next;
      }
    }
  }
  EXPECT_GT(modules, 0);
}

}  // namespace
}  // namespace tdx

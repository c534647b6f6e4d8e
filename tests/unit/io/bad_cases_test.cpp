// tests/data/bad_cases/*.yaml: each is refused with the message fragment on its first
// line ("# expect: ..."), either by load_case or when its meshes are built.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "io/case_loader.hpp"
#include "io_test_util.hpp"

using namespace weft;
namespace fs = std::filesystem;

TEST(BadCases, EachIsRefusedWithItsMessage) {
  const fs::path dir = fs::path(WEFT_DATA_DIR) / "bad_cases";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    std::ifstream in(f);
    std::string first;
    std::getline(in, first);
    const std::string tag = "# expect: ";
    ASSERT_EQ(first.rfind(tag, 0), 0u) << "first line must be '# expect: ...'";
    const std::string want = first.substr(tag.size());
    EXPECT_INPUT_ERROR(
        {
          CaseSpec s = load_case(f.string(), {});
          for (size_t i = 0; i < s.objects.size(); ++i) load_object_mesh(s, i);
        },
        want);
  }
}

// Helpers for the io tests: a per-test temporary folder and an InputError matcher.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"

namespace weft::iotest {

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("weft-io-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::filesystem::create_directories((path_ / name).parent_path());
    std::ofstream(path_ / name) << text;
    return file(name);
  }
  std::string dir() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected InputError, nothing thrown";
  return "";
}

}  // namespace weft::iotest

#define EXPECT_INPUT_ERROR(stmt, fragment)                                           \
  do {                                                                               \
    std::string msg_ = ::weft::iotest::input_error_of([&] { stmt; });                \
    EXPECT_NE(msg_.find(fragment), std::string::npos) << "message: " << msg_;        \
    EXPECT_EQ(msg_.find('\n'), std::string::npos) << "multi-line message: " << msg_; \
  } while (0)

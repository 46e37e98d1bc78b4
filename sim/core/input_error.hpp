#pragma once
// The one error type for bad input: it names where (a JSON pointer or a file), the value, and
// what is allowed. The CLI prints it on one line and exits with kInputErrorExitCode.
#include <stdexcept>
#include <string>

namespace core {

inline constexpr int kInputErrorExitCode = 2;

class InputError : public std::runtime_error {
 public:
  InputError(std::string where, std::string what)
      : std::runtime_error(where.empty() ? what : where + ": " + what), where_(std::move(where)) {}
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

}  // namespace core

#include "workload/pipeline/pipeline_layout.hpp"

#include <cctype>

#include "core/input_error.hpp"

namespace workload {

namespace {

// The string as a flat list of pieces ('E', 't', 'm', 'L' and '|'), repeats unrolled.
class Parser {
 public:
  Parser(const std::string& text, const std::string& where) : text_(text), where_(where) {}

  std::string sequence(bool nested) {
    std::string out;
    while (true) {
      skip();
      if (at_end()) {
        if (nested) fail("an unclosed '('");
        return out;
      }
      const char c = text_[pos_];
      if (c == ')') {
        if (!nested) fail("a ')' without its '('");
        return out;
      }
      std::string piece;
      if (c == '(') {
        ++pos_;
        piece = sequence(true);
        ++pos_;  // the ')'
      } else if (c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|') {
        piece = std::string(1, c);
        ++pos_;
      } else {
        fail("'" + std::string(1, c) + "'");
      }
      skip();
      int times = 1;
      if (!at_end() && text_[pos_] == '*') {
        ++pos_;
        skip();
        const std::size_t start = pos_;
        long long n = 0;
        while (!at_end() && std::isdigit(static_cast<unsigned char>(text_[pos_])) && n <= 100000)
          n = n * 10 + (text_[pos_++] - '0');
        if (pos_ == start || n < 1 || n > 100000) fail("a repeat count that is not an integer from 1 to 100000");
        times = static_cast<int>(n);
      }
      for (int i = 0; i < times; ++i) out += piece;
      if (out.size() > 1000000) fail("a layout of more than a million pieces");
    }
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  void skip() {
    while (!at_end() && (text_[pos_] == ',' || text_[pos_] == ' ')) ++pos_;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw core::InputError(where_,
                           "'" + text_ + "' is not allowed: " + what + " at character " + std::to_string(pos_ + 1) +
                               "; expected E (embedding), t (layer), m (MTP layer), L (loss), | (end of a stage), "
                               "X*n or (...)*n (repeat n times)");
  }

  const std::string& text_;
  const std::string& where_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<LayoutStage> parse_pipeline_layout(const std::string& text, const std::string& where) {
  const std::string pieces = Parser(text, where).sequence(false);
  std::vector<LayoutStage> stages(1);
  for (char c : pieces) {
    LayoutStage& s = stages.back();
    if (c == '|') stages.emplace_back();
    if (c == 'E') s.embedding = true;
    if (c == 't') ++s.layers;
    if (c == 'm') ++s.mtp_layers;
    if (c == 'L') s.loss = true;
  }
  return stages;
}

}  // namespace workload

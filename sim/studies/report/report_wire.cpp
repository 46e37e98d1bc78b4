#include "studies/report/report_wire.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace studies {

namespace {

class Writer {
 public:
  void u64(std::uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void number(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void text(const std::string& s) {
    u64(s.size());
    out_ += s;
  }
  template <class T, class F>
  void optional(const std::optional<T>& v, F write) {
    u64(v.has_value());
    if (v) write(*v);
  }
  template <class T, class F>
  void list(const std::vector<T>& v, F write) {
    u64(v.size());
    for (const T& x : v) write(x);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  std::uint64_t u64() {
    std::uint64_t v;
    need(sizeof v);
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  double number() {
    const std::uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  std::string text() {
    const std::uint64_t n = u64();
    need(n);
    std::string s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  template <class T, class F>
  std::optional<T> optional(F read) {
    if (!u64()) return std::nullopt;
    return read();
  }
  template <class T, class F>
  std::vector<T> list(F read) {
    const std::uint64_t n = u64();
    need(n);  // every element takes a byte at least: a bad count fails here, not in an allocation
    std::vector<T> v;
    v.reserve(n);
    for (std::uint64_t i = 0; i < n; ++i) v.push_back(read());
    return v;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  void need(std::uint64_t n) const {
    if (n > in_.size() - at_) throw std::runtime_error("a report's bytes end early");
  }
  const std::string& in_;
  std::size_t at_ = 0;
};

}  // namespace

std::string report_to_bytes(const Report& r) {
  Writer w;
  auto text = [&](const std::string& s) { w.text(s); };
  auto number = [&](double v) { w.number(v); };
  w.text(r.table_id);
  w.text(r.title);
  w.text(r.source);
  w.list(r.rows, [&](const ReportRow& row) {
    w.text(row.id);
    w.text(row.label);
    w.text(row.metric);
    w.text(row.unit);
    w.optional(row.paper, number);
    w.number(row.ours);
    w.u64(static_cast<std::uint64_t>(row.basis));
  });
  w.list(r.notes, text);
  w.optional(r.trace_json, text);
  w.list(r.checks, [&](const RowCheck& c) {
    w.number(c.tolerance_rel);
    w.optional(c.tolerance_abs, number);
    w.optional(c.known_miss, [&](const KnownMiss& m) {
      w.text(m.reason);
      w.number(m.delta);
    });
    w.optional(c.calibrated, text);
  });
  w.list(r.warnings, text);
  return w.take();
}

Report report_from_bytes(const std::string& bytes) {
  Reader in(bytes);
  auto text = [&] { return in.text(); };
  auto number = [&] { return in.number(); };
  Report r;
  r.table_id = in.text();
  r.title = in.text();
  r.source = in.text();
  r.rows = in.list<ReportRow>([&] {
    ReportRow row;
    row.id = in.text();
    row.label = in.text();
    row.metric = in.text();
    row.unit = in.text();
    row.paper = in.optional<double>(number);
    row.ours = in.number();
    const std::uint64_t basis = in.u64();
    if (basis >= basis_names().size()) throw std::runtime_error("a report's row has no such basis");
    row.basis = static_cast<Basis>(basis);
    return row;
  });
  r.notes = in.list<std::string>(text);
  r.trace_json = in.optional<std::string>(text);
  r.checks = in.list<RowCheck>([&] {
    RowCheck c;
    c.tolerance_rel = in.number();
    c.tolerance_abs = in.optional<double>(number);
    c.known_miss = in.optional<KnownMiss>([&] {
      KnownMiss m;
      m.reason = in.text();
      m.delta = in.number();
      return m;
    });
    c.calibrated = in.optional<std::string>(text);
    return c;
  });
  r.warnings = in.list<std::string>(text);
  if (!in.done()) throw std::runtime_error("a report's bytes go on past it");
  return r;
}

}  // namespace studies

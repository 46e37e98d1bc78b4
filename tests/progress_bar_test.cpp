#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "core/progress_bar.hpp"

namespace {

std::string read_all(std::FILE* f) {
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  return text;
}

}  // namespace

TEST_CASE("work projected past the threshold prints one estimate line, in a log too", "[progress]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  {
    // No delay and a threshold of zero: any work "takes longer" once 2% of it shows its pace.
    core::ProgressBar bar("simulating 10 flows", 100, 0.0, 0.0, log);
    bar.update(1);  // 1%: too little to project from
    CHECK(read_all(log).empty());
    bar.update(10);
    bar.update(50);
  }
  const std::string text = read_all(log);
  std::fclose(log);
  CHECK(text.rfind("simulating 10 flows: about ", 0) == 0);
  CHECK(text.find("in all (10% done after ") != std::string::npos);
  CHECK(text.find('\n') == text.size() - 1);  // one line, and no bar: a file is not a terminal
}

TEST_CASE("an estimate projects the pace of the latest half of the work, not a slow start", "[progress]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  {
    // 2% in 0.3 s, then 2% more at once: the work is fast now. From the start's pace the
    // estimate would be 0.3 s / 2% = 15 s; from the latest half's, about the 0.3 s spent.
    core::ProgressBar bar("simulating", 100, 0.0, 0.0, log);
    bar.update(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    bar.update(2);
    CHECK(read_all(log).empty());  // 2%: too little to take a pace from half of it
    bar.update(3);
    bar.update(4);
  }
  const std::string text = read_all(log);
  std::fclose(log);
  CHECK(text.rfind("simulating: about 0 s in all (4% done after 0 s)", 0) == 0);
}

TEST_CASE("work projected within the threshold prints nothing", "[progress]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  {
    core::ProgressBar bar("simulating", 100, 0.0, 3600.0, log);
    for (int done = 0; done <= 100; ++done) bar.update(done);
  }
  CHECK(read_all(log).empty());
  std::fclose(log);
}

TEST_CASE("a bar made inside another's work fills the outer one's unit", "[progress]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  {
    // Four units of work, the first made of an inner run of 200 steps. The inner bar prints
    // nothing; the outer one projects from whole units only, so not while the first is under way.
    core::ProgressBar outer("simulating 4 planes", 4, 0.0, 0.0, log);
    {
      core::ProgressBar inner("simulating 1000 flows", 200, 0.0, 0.0, log);
      inner.update(100);
      inner.update(200);
    }
    CHECK(read_all(log).empty());
    outer.update(1);
  }
  const std::string text = read_all(log);
  std::fclose(log);
  CHECK(text.rfind("simulating 4 planes: about ", 0) == 0);
  CHECK(text.find("(25% done after ") != std::string::npos);
  CHECK(text.find("1000 flows") == std::string::npos);
  CHECK(text.find('\n') == text.size() - 1);
}

TEST_CASE("an outer bar counts the units under way as far along as the first one done", "[progress]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  {
    // Two units run at once (as planes on two threads) and started together: when the first is
    // done the second is taken as done too, whatever share its bar reports (a fluid run's flows
    // end late): 2 of 4 units.
    core::ProgressBar outer("simulating 4 planes", 4, 0.0, 0.0, log);
    auto first = std::make_unique<core::ProgressBar>("plane 0", 100, 0.0, 0.0, log);
    core::ProgressBar second("plane 1", 100, 0.0, 0.0, log);
    second.update(60);
    first->update(100);
    CHECK(read_all(log).empty());  // no whole unit yet
    first.reset();
    outer.update(1);
  }
  const std::string text = read_all(log);
  std::fclose(log);
  CHECK(text.find("(50% done after ") != std::string::npos);
}

TEST_CASE("durations read as a person says them", "[progress]") {
  CHECK(core::human_duration(45) == "45 s");
  CHECK(core::human_duration(180) == "3 min");
  CHECK(core::human_duration(7560) == "2.1 h");
}

TEST_CASE("off a terminal, long work prints a line of its progress now and then", "[progress]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  {
    // A line every 0.2 s (the first after a third of it): no threshold to pass, only time.
    core::ProgressBar bar("planning 100 layouts", 100, 0.0, 3600.0, log, 0.2);
    bar.update(10);
    CHECK(read_all(log).empty());  // too early
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    bar.update(20);
    bar.update(21);  // too soon after the last line
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    bar.update(60);
  }
  const std::string text = read_all(log);
  std::fclose(log);
  CHECK(text.rfind("planning 100 layouts: 20% done after 0 s", 0) == 0);
  CHECK(text.find("\nplanning 100 layouts: 60% done after 0 s, about 0 s left\n") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);
}

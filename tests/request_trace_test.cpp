#include <catch2/catch.hpp>

#include "serving/request_trace.hpp"

using namespace serving;

TEST_CASE("traces: Azure CSV and Mooncake JSON Lines as published; bad lines named", "[serving]") {
  const auto azure = parse_trace(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n",
      TraceFormat::kAzureCsv, "azure.csv");
  REQUIRE(azure.size() == 2);
  CHECK(azure[0].arrival_s == 0);
  CHECK(azure[1].arrival_s == Approx(4.314579));
  CHECK(azure[1].input_tokens == 396);
  CHECK(azure[1].output_tokens == 109);
  const auto mooncake = parse_trace(
      "{\"timestamp\": 27482, \"input_length\": 6955, \"output_length\": 52, \"hash_ids\": [46, 47, 48]}\n"
      "{\"timestamp\": 30535, \"input_length\": 1000, \"output_length\": 12, \"hash_ids\": [46, 49]}\n",
      TraceFormat::kMooncakeJsonl, "mooncake.jsonl");
  REQUIRE(mooncake.size() == 2);
  CHECK(mooncake[1].arrival_s == Approx(3.053));
  CHECK(mooncake[0].block_hashes == std::vector<std::uint64_t>{46, 47, 48});
  CHECK_THROWS_WITH(parse_trace("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,abc,4\n",
                                TraceFormat::kAzureCsv, "a.csv"),
                    Catch::Contains("a.csv: line 2: ") && Catch::Contains("must be numbers"));
  CHECK_THROWS_WITH(parse_trace("{\"timestamp\": 1, \"input_length\": 0, \"output_length\": 3}\n",
                                TraceFormat::kMooncakeJsonl, "m.jsonl"),
                    Catch::Contains("m.jsonl: line 1: /input_length: 0 is not allowed"));
  CHECK_THROWS_WITH(parse_trace("{\"timestamp\": 1, \n", TraceFormat::kMooncakeJsonl, "m.jsonl"),
                    Catch::Contains("m.jsonl: line 1: malformed JSON"));
  // Found by fuzzing: a number past a double's range, and deep nesting, are malformed lines too.
  CHECK_THROWS_WITH(parse_trace("{\"timestamp\": 21e308, \"input_length\": 3, \"output_length\": 3}\n",
                                TraceFormat::kMooncakeJsonl, "m.jsonl"),
                    Catch::Contains("m.jsonl: line 1: malformed JSON: number overflow"));
  CHECK_THROWS_WITH(
      parse_trace(std::string(100, '[') + std::string(100, ']') + "\n", TraceFormat::kMooncakeJsonl, "m.jsonl"),
      Catch::Contains("m.jsonl: line 1: JSON nested deeper than 64 levels is not allowed"));
  CHECK_THROWS_WITH(parse_trace("time,in,out\n", TraceFormat::kAzureCsv, "b.csv"),
                    Catch::Contains("b.csv: line 1: ") && Catch::Contains("expected the header"));
}

TEST_CASE("traces: read up to the window a run uses, at most so many requests, lines of bounded length", "[serving]") {
  const std::string lines =
      "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2}\n"
      "{\"timestamp\": 500, \"input_length\": 10, \"output_length\": 2}\n"
      "{\"timestamp\": 1500, \"input_length\": 10, \"output_length\": 2}\n"
      "not JSON: past the window, never read\n";
  TraceWindow window;
  window.until_s = 1;
  CHECK(parse_trace(lines, TraceFormat::kMooncakeJsonl, "m.jsonl", window).size() == 2);
  window.max_requests = 1;
  CHECK_THROWS_WITH(parse_trace(lines, TraceFormat::kMooncakeJsonl, "m.jsonl", window),
                    Catch::StartsWith("m.jsonl: line 2: more than 1 requests within the 1 s a run reads"));
  TraceWindow narrow;
  narrow.max_line_bytes = 16;
  CHECK_THROWS_WITH(parse_trace(lines, TraceFormat::kMooncakeJsonl, "m.jsonl", narrow),
                    Catch::Equals("m.jsonl: line 1: a line longer than 16 bytes is not allowed"));
  // Every line is checked for time order, not only against the first.
  CHECK_THROWS_WITH(parse_trace("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2}\n"
                                "{\"timestamp\": 900, \"input_length\": 10, \"output_length\": 2}\n"
                                "{\"timestamp\": 800, \"input_length\": 10, \"output_length\": 2}\n",
                                TraceFormat::kMooncakeJsonl, "m.jsonl"),
                    Catch::StartsWith("m.jsonl: line 3: /timestamp: 800 is before the previous request's"));
}

TEST_CASE("traces: CSV quoting honoured; hex, impossible dates and extra fields refused", "[serving]") {
  const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  auto azure = [&](const std::string& rows) { return parse_trace(header + rows, TraceFormat::kAzureCsv, "a.csv"); };
  // A quoted field is one field: "1,000" is not a count of 1 with a stray field.
  CHECK_THROWS_WITH(azure("2023-11-16 18:15:46,\"1,000\",4\n"),
                    Catch::Contains("a.csv: line 2: ContextTokens '1,000'"));
  const auto quoted = azure("\"2023-11-16 18:15:46\",\"374\",\"44\"\n");
  REQUIRE(quoted.size() == 1);
  CHECK(quoted[0].input_tokens == 374);
  CHECK_THROWS_WITH(azure("2023-11-16 18:15:46,0x10,4\n"), Catch::Contains("a.csv: line 2: ContextTokens '0x10'"));
  CHECK_THROWS_WITH(azure("2023-11-16 18:15:46,1e3,4\n"), Catch::Contains("a.csv: line 2: ContextTokens '1e3'"));
  CHECK_THROWS_WITH(azure("2023-02-31 18:15:46,10,4\n"),
                    Catch::Contains("a.csv: line 2: TIMESTAMP '2023-02-31 18:15:46' is not allowed"));
  CHECK(azure("2024-02-29 18:15:46,10,4\n").size() == 1);  // a leap day
  CHECK_THROWS_WITH(azure("2023-11-16 18:15:0x1p3,10,4\n"),
                    Catch::Contains("TIMESTAMP '2023-11-16 18:15:0x1p3' is not allowed"));
  CHECK_THROWS_WITH(azure("2023-11-16 18:15:46,10,4,extra\n"),
                    Catch::Contains("a.csv: line 2: ") && Catch::Contains("has 4 fields; expected the header's 3"));
  CHECK_THROWS_WITH(parse_trace("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"input_lenght\": 5}\n",
                                TraceFormat::kMooncakeJsonl, "m.jsonl"),
                    Catch::Contains("m.jsonl: line 1: /input_lenght: unknown"));
}

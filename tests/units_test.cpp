#include <catch2/catch.hpp>

#include "core/units.hpp"

TEST_CASE("400 Gb/s is 50 GB/s (SI)", "[units]") { CHECK(core::gbit_per_s_to_Bps(400) == 50e9); }

#include "studies/config/affinity_config.hpp"

namespace studies {

workload::AffinityDistribution parse_affinity(core::JsonReader& s, const std::string& default_skew,
                                              double default_strength) {
  workload::AffinityDistribution a;
  const std::string skew = s.one_of("skew", {"uniform", "zipf", "hot-experts", "balanced"}, default_skew);
  a.skew = skew == "uniform"       ? workload::AffinitySkew::kUniform
           : skew == "zipf"        ? workload::AffinitySkew::kZipf
           : skew == "hot-experts" ? workload::AffinitySkew::kHotExperts
                                   : workload::AffinitySkew::kBalanced;
  a.strength = s.non_negative_number("skew_strength", default_strength);
  return a;
}

}  // namespace studies

#pragma once
// The scenario kinds codesim knows, each with the parser of its study.
#include <string>
#include <vector>

#include "studies/report/study.hpp"

namespace studies {

std::vector<std::string> study_kinds();
StudyParser study_parser(const std::string& kind);  // nullptr when unknown

}  // namespace studies

#pragma once
#include "workload/inference/decode_step.hpp"  // sideways: training may not include inference

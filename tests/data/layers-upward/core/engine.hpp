#pragma once
#include "net/fabric.hpp"  // upward: core may not include net

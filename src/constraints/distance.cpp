// distance_constraint is inline in distance.hpp (the PBD sweeps' inner loop).
#include "constraints/distance.hpp"

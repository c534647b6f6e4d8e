// Free particles under the position-based methods: no internal constraint, only gravity,
// damping and obstacle contact (registered so the stepper accepts the kind).
#include "constraints/registry.hpp"

namespace weft {

extern const ConstraintFactory kParticleConstraints = {ObjectKind::Particles, "particles: none", "pbd,xpbd", nullptr};

}  // namespace weft

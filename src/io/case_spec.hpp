// The case file as plain data (DESIGN.md "Case files"). Filled and validated by
// load_case(); everything downstream reads only this struct, never YAML.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/object_kind.hpp"
#include "core/types.hpp"

namespace weft {

struct MeshSpec {
  // Surfaces (shell, obstacle): grid | disk | sphere | box | cylinder | funnel | bowl;
  // rods: line | polyline | helix | rod_net; particles: particle_block; volumes (tets): box
  // (size, block = [nx, ny, nz] lattice points) | sphere (radius, resolution[0] = points
  // along a diameter). Empty when file is set.
  std::string generator;
  std::string file;             // .obj or .msh path; load_case() stores it absolute (a relative path in
                                // the case resolves against the case file's folder)
  Vec3 size{1.0, 1.0, 1.0};     // grid, rod_net: [x, z] in size[0], size[1]; box, particle_block: full extents
  // grid: [nx, nz] vertices per side; disk: [segments on the rim, rings];
  // cylinder, funnel: [segments around, rings along y]; box: [vertices along the longest edge, unused].
  // load_case() fills per-generator defaults when the case omits it (see case_loader.hpp).
  // rod_net: [rods along x, rods along z].
  std::array<int, 2> resolution{16, 16};
  std::array<int, 3> block{4, 4, 4};  // particle_block: [nx, ny, nz] particles; volume box: lattice points
  double jitter = 0.0;          // grid: 0..0.4 of the spacing, interior vertices only; particle_block: all
  double radius = 0.5;          // disk, sphere, cylinder, helix, bowl
  double length = 1.0;          // line
  int segments = 16;            // line, helix
  double pitch = 0.1;           // helix: rise per turn
  double turns = 3.0;           // helix
  std::vector<Vec3> points;     // polyline
  double height = 1.0;          // cylinder, funnel
  double top_radius = 0.5;      // funnel: rim radius at y = +height/2
  double bottom_radius = 0.1;   // funnel: rim radius at y = -height/2
  int subdivisions = 3;         // sphere (icosphere); rod_net: segments per piece between crossings (default 1)
  unsigned seed = 1;            // jitter seed
  bool capped = true;           // cylinder: closed by end caps (false: open tube)
};

struct TransformSpec {
  Vec3 translate{0, 0, 0};
  double rotate_deg = 0.0;
  Vec3 rotate_axis{0, 1, 0};
  double scale = 1.0;
};

// Per-direction strain limits of the orthotropic membrane (C-IPC sec. 4.2, eqs. 8-10),
// the case's `strain_limit: {warp, weft, shear, warp_direction}`; 0 = no limit.
struct AnisoLimitSpec {
  double warp = 0.0;             // largest stretch ratio along the warp direction (> 1)
  double weft = 0.0;             // largest stretch ratio along the weft direction (> 1)
  double shear = 0.0;            // largest |E_12| of the aligned Green strain
  Vec3 warp_direction{0, 0, 0};  // world axis, projected into each rest triangle; 0 = +x
  // Whether the case gave warp_direction: it then wins over an OBJ's texture coordinates
  // (without it, a textured OBJ's u is the warp; otherwise +x).
  bool warp_given = false;
};

struct MaterialSpec {
  std::string model = "neo_hookean";  // neo_hookean | stvk | orthotropic (shells); fixed_corotated | neo_hookean (volumes)
  double density = 472.6;             // kg/m^3
  double youngs = 8.0e5;              // Pa
  double poisson = 0.243;
  double thickness = 3.18e-4;         // m
  double bending_youngs = -1.0;       // Pa; < 0 means "same as youngs"; 0 disables bending
  double radius = 0.0;                // m: rods (cross-section) and particles; 0 = not given
  double vertex_mass = 0.0;           // kg: > 0 replaces the lumped masses by this per vertex
  // Orthotropic membrane (C-IPC eq. 8), Pa: psi = a11/2 E11^2 + a22/2 E22^2 + a12 E11 E22 +
  // g12 E12^2 at small strain, E the Green strain in the (warp, weft) frame.
  double a11 = 0.0, a22 = 0.0, a12 = 0.0, g12 = 0.0;
  AnisoLimitSpec aniso_limit;
};

// Scripted motion of pins and obstacles: translation at a velocity plus rotation about an
// axis through a centre, both starting at t = 0 (and optionally stopping at `until`).
struct MotionSpec {
  Vec3 velocity{0, 0, 0};
  Vec3 rotate_axis{0, 1, 0};
  Vec3 rotate_center{0, 0, 0};
  double deg_per_s = 0.0;
  double start = 0.0;           // s
  double until = 1e30;          // s
  bool moving() const { return velocity.squaredNorm() > 0 || deg_per_s != 0; }
};

struct PinSpec {
  Vec3 box_min, box_max;        // world coordinates after the transform
  MotionSpec motion;
};

// Implicit mass-spring and Projective Dynamics springs (issue 18; case keys `mass_spring:`
// and `pd:`). Stiffnesses are per spring, N/m; < 0 = not given: derived per object from its
// material (energy/spring.hpp says how).
struct MassSpringSpec {
  double stretch_stiffness = -1.0;
  double shear_stiffness = -1.0;
  double bending_stiffness = -1.0;
  std::string bending = "springs";  // springs | dihedral (002 sec. 11.1 f(theta) u_i)
};

struct PdSpec {
  int iterations = 100;       // local/global iterations per step at most
  double tolerance = 1.0e-6;  // m: stop when ||x^(k+1) - x^k||_inf < tolerance
};

struct ObjectSpec {
  std::string name;
  ObjectKind kind = ObjectKind::Shell;  // shell | rod | particles | volume | obstacle (rigid: a later issue)
  MeshSpec mesh;
  TransformSpec transform;
  MaterialSpec material;
  double strain_limit = 0.0;    // max singular value; 0 = none
  double strain_threshold = 1.0;  // s_hat of eq. 5: the barrier is active above this stretch
  double offset = 0.0;          // xi, thickness offset (rods, particles: default 2 material.radius)
  double friction = -1.0;       // < 0: use contact.friction
  std::vector<PinSpec> pins;
  Vec3 initial_velocity{0, 0, 0};
  MotionSpec motion;            // obstacles
  MassSpringSpec springs;       // the case's mass_spring block (the spring terms read it here)
};

struct LinearSpec {
  std::string ksp;              // empty: weft's default (see solver/linear_system.cpp)
  std::string pc;
  double rtol = 1e-6;
  // Krylov solve + factorisation preconditioner (e.g. cg + cholesky): CG iterations an
  // older factorisation may spend within a step before weft factors again; 0 = factor
  // every Newton iteration.
  int factor_reuse_its = 20;
};

// Position-based methods (issue 18; methods/pbd.cpp): the case's `pbd:` block (method pbd) or
// `xpbd:` block (method xpbd; compliances instead of stiffnesses). Keys parsed but not
// implemented yet are refused by the loader when set to a non-default value.
struct PbdSpec {
  int iterations = 10;             // projection sweeps per substep
  int substeps = 1;
  std::string solver = "gauss_seidel";  // gauss_seidel | jacobi
  // Chebyshev semi-iterative acceleration of the Jacobi sweeps (002 sec. 12.1, Wang 2015):
  // `chebyshev: true` estimates the spectral radius rho from the first step's plain sweeps,
  // `chebyshev: <rho>` in (0, 1) gives it. Needs solver: jacobi.
  bool chebyshev = false;
  double chebyshev_rho = 0.0;      // 0 = estimate
  int levels = 1;                  // hierarchical levels (003 sec. 4.3), 1 = none
  double damping = 0.0;            // 001 sec. 3.5, in [0, 1]
  double stretch_stiffness = 1.0;  // pbd: in [0, 1]
  double bending_stiffness = 0.1;  // pbd: in [0, 1]
  double compliance = -1.0;        // xpbd, m/N; < 0 = from the material
  double bending_compliance = -1.0;  // xpbd; < 0 = from the material
  std::string bending = "dihedral";  // dihedral | isometric
  bool self_collision = false;     // cloth self-collision (001 sec. 4.3), thickness max(thickness, contact.dhat)
  double thickness = 0.0;          // m, collision thickness
  double restitution = 0.0;        // in [0, 1]
  double tear_stretch = 0.0;       // 0 = off; else the stretch ratio > 1 past which an edge tears
  double pressure = 0.0;           // k_pressure (001 eq. 14), 0 = off; closed shells only
  double strain_min = 0.0, strain_max = 0.0;  // strain_limit: [sigma_min, sigma_max]; 0, 0 = none
  bool strain_limit = false;
  std::string integrator = "euler";  // euler | bdf2
};

// One `stitches` entry (issue 19 point 3, C-IPC sec. 6.7 garments): the vertices of object
// a inside box a and of object b inside box b (world coordinates after the transform, as pin
// boxes), matched in order along each box's longest axis (io/stitch_match.hpp).
struct StitchSide {
  int object = -1;              // index into CaseSpec::objects
  Vec3 box_min, box_max;
};
struct StitchSpec {
  StitchSide a, b;
};

struct CaseSpec {
  std::string path;             // the file it came from
  std::string name = "case";
  double dt = 0.04;
  int frames = 50;
  Vec3 gravity{0, -9.81, 0};
  std::string method = "cipc";
  double newton_tol = 1e-2;     // on ||p||_inf / h, in m/s
  int max_newton = 200;
  // Newton stopping norm: max = ||p||_inf / h < newton_tol; rms = the RMS over the free
  // nodes of |p| / h below newton_tol for 3 consecutive iterations (C-IPC's rule).
  std::string newton_norm = "max";
  LinearSpec linear;
  bool contact_enabled = true;  // false: no barrier, friction or CCD (elasticity-only studies)
  double dhat = 1e-3;
  double friction = 0.0;
  int friction_iterations = 1;
  double epsilon_v = 1e-3;      // friction smoothing velocity, m/s
  double kappa_s = 1.0e3;       // strain-limit barrier stiffness, Pa (C-IPC section 4.1)
  std::string output_file = "out/case.h5";
  int output_every = 1;
  int checkpoint_every = 10;
  // Per-frame fields written beside /frames/positions (always written): velocities (per
  // vertex) and strain_ratio (per triangle). output.fields picks a subset.
  std::vector<std::string> output_fields{"velocities", "strain_ratio"};
  MassSpringSpec mass_spring;   // method mass_spring and pd
  PdSpec pd;                    // method pd
  std::vector<ObjectSpec> objects;
  PbdSpec pbd;                  // `pbd:` (method pbd)
  PbdSpec xpbd;                 // `xpbd:` (method xpbd)
  std::vector<StitchSpec> stitches;  // `stitches:` (methods cipc and mass_spring)
};

}  // namespace weft

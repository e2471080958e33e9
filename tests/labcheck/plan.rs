//! `labcheck plan` on the real binary, over module 11's shop-config as the team left it and as
//! the learner fixes it.

use labcheck::lab::module_11::{Point, REPO, ShopWorld};

use crate::harness::labcheck;

struct Shop {
    _dir: tempfile::TempDir,
    world: ShopWorld,
}

fn shop(point: Point) -> Shop {
    let dir = tempfile::tempdir().expect("a temp dir");
    let world = ShopWorld::at(dir.path(), point).expect("the shop world builds");
    Shop { _dir: dir, world }
}

impl Shop {
    fn manifests(&self) -> String {
        self.world
            .work_dir()
            .join(REPO)
            .join("manifests")
            .display()
            .to_string()
    }

    fn argocd(&self) -> String {
        self.world
            .work_dir()
            .join(REPO)
            .join("argocd")
            .display()
            .to_string()
    }
}

#[test]
fn debug_print() {
    let s = shop(Point::Step4);
    let run = labcheck(
        s.world.root(),
        &["plan", "--rules", &s.manifests(), &s.argocd()],
    );
    println!("{}\n{}\n{}", run.code, run.stdout, run.stderr);
    let s = shop(Point::Fresh);
    let run = labcheck(
        s.world.root(),
        &["plan", "--rules", &s.manifests(), &s.argocd()],
    );
    println!("{}\n{}\n{}", run.code, run.stdout, run.stderr);
    panic!();
}

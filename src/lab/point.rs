//! The points of a module at which a lab world can be built, declared once per module: the
//! enum, its names on the command line, `Display` and `FromStr` come from one list.

/// Declare a module's points: `lab_points! { /// doc  pub enum Name { /// doc  Fresh => "fresh", … } }`.
/// The first point is the fresh lab; the others are in course order.
macro_rules! lab_points {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every point, in course order.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            /// Every point from the fresh lab up to and including this one, in course order.
            pub fn up_to(self) -> impl Iterator<Item = $name> {
                $name::ALL.into_iter().take_while(move |p| *p <= self)
            }

            /// The name used on the command line (`--at step-4`) and in fixture file names.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text ),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::lab::repo::LabError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $name::ALL
                    .into_iter()
                    .find(|p| p.as_str() == s)
                    .ok_or_else(|| $crate::lab::repo::LabError::UnknownPoint {
                        name: s.to_string(),
                        points: [$($text),+].join(", "),
                    })
            }
        }
    };
}

pub(crate) use lab_points;

"""MuJoCo renders of boards under oblique cameras, where checker height and stacks show."""
